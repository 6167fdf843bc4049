"""`python -m httpmock_bin ARGS` runs `httpmock ARGS`."""

from httpmock_bin import main

main()
