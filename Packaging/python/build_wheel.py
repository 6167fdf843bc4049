#!/usr/bin/env python3
"""Builds the `httpmock-bin` wheel around an `httpmock` binary, with the standard library only
(no setuptools, no wheel package, nothing downloaded).

    python3 Packaging/python/build_wheel.py BINARY OUTDIR [--version 0.1.0]

BINARY is the README's static build (.build-static/release/httpmock) for a wheel to ship; any
httpmock binary works for a local try. Prints the wheel's path. The wheel is tagged
`py3-none-linux_<arch>`, the arch read from the binary's ELF header (x86_64 or aarch64):
a static httpmock still links glibc and libcurl from the system (and opens JavaScriptCore
when a Voodoo script loads), which the manylinux policies do not allow, so a manylinux tag
would promise more than the binary keeps. pip installs `linux_*` wheels on Linux; PyPI does
not take them, so the wheel is a build artefact, installed from a file.
"""

import argparse
import base64
import hashlib
import os
import pathlib
import re
import stat
import sys
import zipfile

NAME = "httpmock_bin"
DISTRIBUTION = "httpmock-bin"
SOURCES = pathlib.Path(__file__).resolve().parent / "src" / NAME
# An ELF header's e_machine, as the Linux wheel platform tags name them.
MACHINES = {62: "x86_64", 183: "aarch64"}
# Zip entries get one fixed date, so the same inputs give the same wheel.
DATE = (2026, 1, 1, 0, 0, 0)


def fail(message):
    sys.exit(f"build_wheel.py: {message}")


def architecture(binary):
    header = binary.read_bytes()[:20]
    if header[:4] != b"\x7fELF":
        fail(f"{binary} is not an ELF executable (a Linux httpmock binary is needed)")
    if header[4] != 2:
        fail(f"{binary} is a 32-bit ELF file; the wheel is for 64-bit Linux (x86_64, aarch64)")
    machine = int.from_bytes(header[18:20], "big" if header[5] == 2 else "little")
    if machine not in MACHINES:
        fail(f"{binary} is built for ELF machine {machine}, not x86_64 (62) or aarch64 (183)")
    return MACHINES[machine]


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata(version):
    readme = (SOURCES.parent.parent / "README.md").read_text()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {DISTRIBUTION}\n"
        f"Version: {version}\n"
        "Summary: The httpmock binary (HTTPMock's WireMock-compatible mock server) and a pytest fixture for it\n"
        "Requires-Python: >=3.8\n"
        "Provides-Extra: pytest\n"
        "Requires-Dist: pytest>=7; extra == \"pytest\"\n"
        "Requires-Dist: wiremock>=2.6; extra == \"pytest\"\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )


def main():
    parser = argparse.ArgumentParser(description="Build the httpmock-bin wheel around an httpmock binary.")
    parser.add_argument("binary", type=pathlib.Path, help="the httpmock binary (.build-static/release/httpmock)")
    parser.add_argument("outdir", type=pathlib.Path, help="the folder to write the wheel to")
    parser.add_argument("--version", default="0.1.0", help="the wheel's version (PEP 440; default 0.1.0)")
    options = parser.parse_args()
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", options.version):
        fail(f"--version {options.version!r} is not a PEP 440 version such as 0.1.0")
    binary = options.binary
    if not binary.is_file():
        fail(f"no httpmock binary at {binary} (build it with README's static build step)")
    if not os.access(binary, os.X_OK):
        fail(f"{binary} is not executable")
    tag = f"py3-none-linux_{architecture(binary)}"
    dist_info = f"{NAME}-{options.version}.dist-info"
    files = [(f"{NAME}/{path.name}", path.read_bytes(), 0o644) for path in sorted(SOURCES.glob("*.py"))]
    files.append((f"{NAME}/bin/httpmock", binary.read_bytes(), 0o755))
    files.append((f"{dist_info}/METADATA", metadata(options.version).encode(), 0o644))
    files.append(
        (f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: HTTPMock build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n".encode(), 0o644)
    )
    files.append(
        (
            f"{dist_info}/entry_points.txt",
            b"[console_scripts]\nhttpmock = httpmock_bin:main\n\n[pytest11]\nhttpmock = httpmock_bin.pytest_plugin\n",
            0o644,
        )
    )
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode(), 0o644))

    options.outdir.mkdir(parents=True, exist_ok=True)
    wheel = options.outdir / f"{NAME}-{options.version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in files:
            entry = zipfile.ZipInfo(name, date_time=DATE)
            entry.external_attr = (stat.S_IFREG | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    print(wheel)


if __name__ == "__main__":
    main()
