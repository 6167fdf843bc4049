// Caps how many tests Swift Testing runs at once, before its runner reads its configuration.
//
// Swift Testing starts every test of the run at once (582 with both traits). On Linux each test
// body runs on Swift's cooperative pool, which has one thread per core, and so do the dispatch
// queues FoundationNetworking's URLSession and HTTPMock's in-process transport deliver on. With
// two cores, the synchronous stretches of a few hundred tests kept both threads busy for 7-25 s at
// the start of a run; every in-process request made then waited behind them, and some ran into
// their 15 s timeout (Docs/HTTPMock.docc/LinuxNotes.md, "Test-runner facts"). Six tests per core keeps
// the pool's queue short and made the run faster as well (99.5 s against 106 s with both traits).
//
// Runs as a constructor (ELF .init_array), before `main` hands over to Swift Testing's entry point, and never
// overrides a width the caller set in SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH.
#include "TestSettings.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const widthVariable = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";
static int widthSetHere = 0;

__attribute__((constructor)) static void httpmock_cap_parallelization_width(void) {
    if (getenv(widthVariable) != NULL) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    long width = cores * 6;
    if (width < 8) width = 8;
    char text[24];
    snprintf(text, sizeof text, "%ld", width);
    widthSetHere = setenv(widthVariable, text, 0) == 0;
}

int httpmock_test_parallelization_width(void) {
    const char *text = getenv(widthVariable);
    return text == NULL ? 0 : atoi(text);
}

int httpmock_test_parallelization_width_set_here(void) { return widthSetHere; }
