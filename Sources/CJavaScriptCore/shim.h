// JavaScriptCore's C API as Debian's libjavascriptcoregtk-4.1-dev installs it (Apple's API),
// plus the execution time limit, which the library exports but the public headers omit.
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

#ifdef __cplusplus
}
#endif

#endif
