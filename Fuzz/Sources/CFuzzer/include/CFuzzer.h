#ifndef HTTPMOCK_CFUZZER_H
#define HTTPMOCK_CFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`): parses the
/// command line and calls `callback` with each input. Declared here because SwiftPM gives an
/// executable target its own entry point, so libFuzzer's `main` cannot be used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
