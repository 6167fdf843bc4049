// Opens JavaScriptCore on first use and forwards include/CJavaScriptCore.h's functions to it.
#include "CJavaScriptCore.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define HTTPMOCK_JAVASCRIPTCORE_SONAME "libjavascriptcoregtk-4.1.so.0"

// X(return type, name in the library, our name, parameters, arguments): the functions that
// return a value, then those that return nothing. The library's name and ours differ only for
// WTF::releaseFastMallocFreeMemory (a C++ symbol).
#define HTTPMOCK_JSC_RETURNING(X)                                                                                      \
    X(JSValueRef, JSEvaluateScript, JSEvaluateScript,                                                                  \
      (JSContextRef ctx, JSStringRef script, JSObjectRef thisObject, JSStringRef sourceURL, int startingLineNumber,    \
       JSValueRef *exception),                                                                                         \
      (ctx, script, thisObject, sourceURL, startingLineNumber, exception))                                             \
    X(bool, JSCheckScriptSyntax, JSCheckScriptSyntax,                                                                  \
      (JSContextRef ctx, JSStringRef script, JSStringRef sourceURL, int startingLineNumber, JSValueRef *exception),    \
      (ctx, script, sourceURL, startingLineNumber, exception))                                                         \
    X(JSContextGroupRef, JSContextGroupCreate, JSContextGroupCreate, (void), ())                                       \
    X(JSGlobalContextRef, JSGlobalContextCreateInGroup, JSGlobalContextCreateInGroup,                                  \
      (JSContextGroupRef group, JSClassRef globalObjectClass), (group, globalObjectClass))                              \
    X(JSObjectRef, JSContextGetGlobalObject, JSContextGetGlobalObject, (JSContextRef ctx), (ctx))                      \
    X(JSClassRef, JSClassCreate, JSClassCreate, (const JSClassDefinition *definition), (definition))                   \
    X(JSObjectRef, JSObjectMake, JSObjectMake, (JSContextRef ctx, JSClassRef jsClass, void *data), (ctx, jsClass, data)) \
    X(JSValueRef, JSObjectGetProperty, JSObjectGetProperty,                                                            \
      (JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception),                         \
      (ctx, object, propertyName, exception))                                                                          \
    X(void *, JSObjectGetPrivate, JSObjectGetPrivate, (JSObjectRef object), (object))                                  \
    X(JSValueRef, JSObjectCallAsFunction, JSObjectCallAsFunction,                                                      \
      (JSContextRef ctx, JSObjectRef object, JSObjectRef thisObject, size_t argumentCount, const JSValueRef arguments[], \
       JSValueRef *exception),                                                                                         \
      (ctx, object, thisObject, argumentCount, arguments, exception))                                                  \
    X(JSObjectRef, JSObjectMakeArrayBufferWithBytesNoCopy, JSObjectMakeArrayBufferWithBytesNoCopy,                     \
      (JSContextRef ctx, void *bytes, size_t byteLength, JSTypedArrayBytesDeallocator bytesDeallocator,                \
       void *deallocatorContext, JSValueRef *exception),                                                               \
      (ctx, bytes, byteLength, bytesDeallocator, deallocatorContext, exception))                                       \
    X(bool, JSValueIsNumber, JSValueIsNumber, (JSContextRef ctx, JSValueRef value), (ctx, value))                      \
    X(JSValueRef, JSValueMakeUndefined, JSValueMakeUndefined, (JSContextRef ctx), (ctx))                               \
    X(JSValueRef, JSValueMakeNull, JSValueMakeNull, (JSContextRef ctx), (ctx))                                         \
    X(JSValueRef, JSValueMakeFromJSONString, JSValueMakeFromJSONString, (JSContextRef ctx, JSStringRef string),        \
      (ctx, string))                                                                                                   \
    X(double, JSValueToNumber, JSValueToNumber, (JSContextRef ctx, JSValueRef value, JSValueRef *exception),           \
      (ctx, value, exception))                                                                                         \
    X(JSStringRef, JSValueToStringCopy, JSValueToStringCopy, (JSContextRef ctx, JSValueRef value, JSValueRef *exception), \
      (ctx, value, exception))                                                                                         \
    X(JSObjectRef, JSValueToObject, JSValueToObject, (JSContextRef ctx, JSValueRef value, JSValueRef *exception),      \
      (ctx, value, exception))                                                                                         \
    X(JSStringRef, JSStringCreateWithUTF8CString, JSStringCreateWithUTF8CString, (const char *string), (string))      \
    X(size_t, JSStringGetLength, JSStringGetLength, (JSStringRef string), (string))                                    \
    X(size_t, JSStringGetMaximumUTF8CStringSize, JSStringGetMaximumUTF8CStringSize, (JSStringRef string), (string))   \
    X(size_t, JSStringGetUTF8CString, JSStringGetUTF8CString, (JSStringRef string, char *buffer, size_t bufferSize),   \
      (string, buffer, bufferSize))                                                                                    \
    X(int, jsc_options_set_boolean, jsc_options_set_boolean, (const char *option, int value), (option, value))

#define HTTPMOCK_JSC_VOID(X)                                                                                           \
    X(void, JSGarbageCollect, JSGarbageCollect, (JSContextRef ctx), (ctx))                                             \
    X(void, JSContextGroupRelease, JSContextGroupRelease, (JSContextGroupRef group), (group))                          \
    X(void, JSGlobalContextRelease, JSGlobalContextRelease, (JSGlobalContextRef ctx), (ctx))                           \
    X(void, JSClassRelease, JSClassRelease, (JSClassRef jsClass), (jsClass))                                           \
    X(void, JSObjectSetProperty, JSObjectSetProperty,                                                                  \
      (JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef value, JSPropertyAttributes attributes, \
       JSValueRef *exception),                                                                                         \
      (ctx, object, propertyName, value, attributes, exception))                                                       \
    X(void, JSStringRelease, JSStringRelease, (JSStringRef string), (string))                                          \
    X(void, JSContextGroupSetExecutionTimeLimit, JSContextGroupSetExecutionTimeLimit,                                  \
      (JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context),                      \
      (group, limit, callback, context))                                                                               \
    X(void, JSContextGroupClearExecutionTimeLimit, JSContextGroupClearExecutionTimeLimit, (JSContextGroupRef group),   \
      (group))                                                                                                         \
    X(void, JSSynchronousGarbageCollectForDebugging, JSSynchronousGarbageCollectForDebugging, (JSContextRef ctx),      \
      (ctx))                                                                                                           \
    X(void, _ZN3WTF27releaseFastMallocFreeMemoryEv, HTTPMockReleaseJavaScriptCoreFreeMemory, (void), ())

// The library's functions, set once by load() under pthread_once.
#define HTTPMOCK_JSC_POINTER(type, symbol, name, parameters, arguments) static type(*library_##name) parameters;
HTTPMOCK_JSC_RETURNING(HTTPMOCK_JSC_POINTER)
HTTPMOCK_JSC_VOID(HTTPMOCK_JSC_POINTER)

const JSClassDefinition kJSClassDefinitionEmpty = {0};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char problem[1024] = "";

/// Finds `symbol` in `handle`, or says which symbol `library` lacks.
static int resolve(void *handle, const char *library, const char *symbol, void **slot) {
    *slot = dlsym(handle, symbol);
    if (*slot != NULL) return 1;
    snprintf(problem, sizeof problem, "%s has no function %s", library, symbol);
    return 0;
}

static void load(void) {
    const char *library = getenv("HTTPMOCK_JAVASCRIPTCORE_LIBRARY");
    if (library == NULL || library[0] == '\0') library = HTTPMOCK_JAVASCRIPTCORE_SONAME;
    // RTLD_LOCAL: the library's symbols never serve other lookups (nor replace these forwarders).
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *text = dlerror();
        snprintf(problem, sizeof problem, "%s", text != NULL ? text : library);
        return;
    }
    // A library that lacks a function stays open: closing JavaScriptCore once opened is not safe.
#define HTTPMOCK_JSC_RESOLVE(type, symbol, name, parameters, arguments)                                                \
    if (!resolve(handle, library, #symbol, (void **)&library_##name)) return;
    HTTPMOCK_JSC_RETURNING(HTTPMOCK_JSC_RESOLVE)
    HTTPMOCK_JSC_VOID(HTTPMOCK_JSC_RESOLVE)
#undef HTTPMOCK_JSC_RESOLVE
    loaded = 1;
}

int HTTPMockLoadJavaScriptCore(const char **error) {
    pthread_once(&once, load);
    if (!loaded && error != NULL) *error = problem;
    return loaded;
}

#define HTTPMOCK_JSC_FORWARD(type, symbol, name, parameters, arguments)                                                \
    type name parameters { return library_##name arguments; }
#define HTTPMOCK_JSC_FORWARD_VOID(type, symbol, name, parameters, arguments)                                           \
    void name parameters { library_##name arguments; }
HTTPMOCK_JSC_RETURNING(HTTPMOCK_JSC_FORWARD)
HTTPMOCK_JSC_VOID(HTTPMOCK_JSC_FORWARD_VOID)
