// JavaScriptCore's C API as Debian's libjavascriptcoregtk-4.1-dev installs it (Apple's API),
// plus what the library exports but the public headers omit: the execution time limit, a
// synchronous collection, the option setter of its GLib API and the allocator's release of free
// memory (SPEC §23: WebAssembly off, memory given back after a script is stopped).
#ifndef CJAVASCRIPTCORE_SHIM_H
#define CJAVASCRIPTCORE_SHIM_H

#include <JavaScriptCore/JavaScript.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Called when a script has run past its limit; returning true terminates it.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// Limits how long scripts of the group may run; the callback decides whether to terminate.
void JSContextGroupSetExecutionTimeLimit(
    JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context);

/// Removes the limit set by JSContextGroupSetExecutionTimeLimit.
void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

/// Collects the group's garbage now (exported by JavaScriptCore, declared in its private headers).
void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

/// JavaScriptCore's option setter (its GLib API, `jsc_options_set_boolean`): valid only before
/// the first virtual machine of the process is created. Returns whether the option exists.
int jsc_options_set_boolean(const char *option, int value);

/// WTF::releaseFastMallocFreeMemory(): gives the allocator's free pages back to the system.
void _ZN3WTF27releaseFastMallocFreeMemoryEv(void);

/// Returns the memory JavaScriptCore's allocator holds but no longer uses to the system.
static inline void HTTPMockReleaseJavaScriptCoreFreeMemory(void) { _ZN3WTF27releaseFastMallocFreeMemoryEv(); }

#ifdef __cplusplus
}
#endif

#endif
