// The part of JavaScriptCore's C API that Voodoo's scripts use (Linux), declared here rather than
// taken from libjavascriptcoregtk-4.1-dev: the library is not linked but opened on first use
// (HTTPMockLoadJavaScriptCore), so a process that runs no script never loads it and its
// dependencies, and building needs neither the -dev package nor pkg-config (SPEC §23).
//
// Every function below is defined by this target with JavaScriptCore's name and signature and
// forwards to the library's function, found with dlsym. Call HTTPMockLoadJavaScriptCore first,
// and none of them unless it returned 1. The types and the JSClassDefinition layout follow
// JavaScriptCore's C ABI (JSBase.h, JSObjectRef.h, JSValueRef.h of WebKitGTK 4.1).
#ifndef CJAVASCRIPTCORE_H
#define CJAVASCRIPTCORE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Defined in this target and used only inside the image it is linked into: the library, opened
// later, never binds its own calls to these forwarders.
#define HTTPMOCK_JSC_API __attribute__((visibility("hidden")))

// MARK: - Loading

/// Opens JavaScriptCore (once per process; thread-safe) and finds every function below.
///
/// The library is `libjavascriptcoregtk-4.1.so.0` (package libjavascriptcoregtk-4.1-0), or the
/// file the environment variable `HTTPMOCK_JAVASCRIPTCORE_LIBRARY` names. Returns 1 when all
/// is ready; otherwise 0 and, when `error` is not NULL, sets it to why (dlerror's text, or the
/// symbol the library lacks). The message lives as long as the process; the answer never changes.
HTTPMOCK_JSC_API int HTTPMockLoadJavaScriptCore(const char **error);

// MARK: - Types (JSBase.h, JSObjectRef.h, JSValueRef.h)

typedef const struct OpaqueJSContextGroup *JSContextGroupRef;
typedef const struct OpaqueJSContext *JSContextRef;
typedef struct OpaqueJSContext *JSGlobalContextRef;
typedef struct OpaqueJSString *JSStringRef;
typedef struct OpaqueJSClass *JSClassRef;
typedef struct OpaqueJSPropertyNameAccumulator *JSPropertyNameAccumulatorRef;
typedef const struct OpaqueJSValue *JSValueRef;
typedef struct OpaqueJSValue *JSObjectRef;

/// Frees the bytes of an ArrayBuffer made without a copy.
typedef void (*JSTypedArrayBytesDeallocator)(void *bytes, void *deallocatorContext);

/// A value's type (used by JSClassDefinition's convertToType).
typedef enum {
    kJSTypeUndefined,
    kJSTypeNull,
    kJSTypeBoolean,
    kJSTypeNumber,
    kJSTypeString,
    kJSTypeObject,
    kJSTypeSymbol,
    kJSTypeBigInt
} JSType;

/// Property attributes, combined with `|`.
enum {
    kJSPropertyAttributeNone = 0,
    kJSPropertyAttributeReadOnly = 1 << 1,
    kJSPropertyAttributeDontEnum = 1 << 2,
    kJSPropertyAttributeDontDelete = 1 << 3
};
typedef unsigned JSPropertyAttributes;

/// Class attributes, combined with `|`.
enum { kJSClassAttributeNone = 0, kJSClassAttributeNoAutomaticPrototype = 1 << 1 };
typedef unsigned JSClassAttributes;

typedef void (*JSObjectInitializeCallback)(JSContextRef ctx, JSObjectRef object);
typedef void (*JSObjectFinalizeCallback)(JSObjectRef object);
typedef bool (*JSObjectHasPropertyCallback)(JSContextRef ctx, JSObjectRef object, JSStringRef propertyName);
typedef JSValueRef (*JSObjectGetPropertyCallback)(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception);
typedef bool (*JSObjectSetPropertyCallback)(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef value, JSValueRef *exception);
typedef bool (*JSObjectDeletePropertyCallback)(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception);
typedef void (*JSObjectGetPropertyNamesCallback)(
    JSContextRef ctx, JSObjectRef object, JSPropertyNameAccumulatorRef propertyNames);
typedef JSValueRef (*JSObjectCallAsFunctionCallback)(
    JSContextRef ctx, JSObjectRef function, JSObjectRef thisObject, size_t argumentCount, const JSValueRef arguments[],
    JSValueRef *exception);
typedef JSObjectRef (*JSObjectCallAsConstructorCallback)(
    JSContextRef ctx, JSObjectRef constructor, size_t argumentCount, const JSValueRef arguments[], JSValueRef *exception);
typedef bool (*JSObjectHasInstanceCallback)(
    JSContextRef ctx, JSObjectRef constructor, JSValueRef possibleInstance, JSValueRef *exception);
typedef JSValueRef (*JSObjectConvertToTypeCallback)(JSContextRef ctx, JSObjectRef object, JSType type, JSValueRef *exception);

/// A static property of a class (only pointed to by JSClassDefinition here).
typedef struct JSStaticValue JSStaticValue;
/// A static function of a class (only pointed to by JSClassDefinition here).
typedef struct JSStaticFunction JSStaticFunction;

/// A class's definition: JavaScriptCore's version 0 layout, field by field.
typedef struct {
    int version;
    JSClassAttributes attributes;
    const char *className;
    JSClassRef parentClass;
    const JSStaticValue *staticValues;
    const JSStaticFunction *staticFunctions;
    JSObjectInitializeCallback initialize;
    JSObjectFinalizeCallback finalize;
    JSObjectHasPropertyCallback hasProperty;
    JSObjectGetPropertyCallback getProperty;
    JSObjectSetPropertyCallback setProperty;
    JSObjectDeletePropertyCallback deleteProperty;
    JSObjectGetPropertyNamesCallback getPropertyNames;
    JSObjectCallAsFunctionCallback callAsFunction;
    JSObjectCallAsConstructorCallback callAsConstructor;
    JSObjectHasInstanceCallback hasInstance;
    JSObjectConvertToTypeCallback convertToType;
} JSClassDefinition;

/// A definition with every field zero (JavaScriptCore's is all zeros too), to start from.
HTTPMOCK_JSC_API extern const JSClassDefinition kJSClassDefinitionEmpty;

// MARK: - Scripts and contexts (JSBase.h, JSContextRef.h)

HTTPMOCK_JSC_API JSValueRef JSEvaluateScript(
    JSContextRef ctx, JSStringRef script, JSObjectRef thisObject, JSStringRef sourceURL, int startingLineNumber,
    JSValueRef *exception);
HTTPMOCK_JSC_API bool JSCheckScriptSyntax(
    JSContextRef ctx, JSStringRef script, JSStringRef sourceURL, int startingLineNumber, JSValueRef *exception);
HTTPMOCK_JSC_API void JSGarbageCollect(JSContextRef ctx);

HTTPMOCK_JSC_API JSContextGroupRef JSContextGroupCreate(void);
HTTPMOCK_JSC_API void JSContextGroupRelease(JSContextGroupRef group);
HTTPMOCK_JSC_API JSGlobalContextRef JSGlobalContextCreateInGroup(JSContextGroupRef group, JSClassRef globalObjectClass);
HTTPMOCK_JSC_API void JSGlobalContextRelease(JSGlobalContextRef ctx);
HTTPMOCK_JSC_API JSObjectRef JSContextGetGlobalObject(JSContextRef ctx);

// MARK: - Objects (JSObjectRef.h, JSTypedArray.h)

HTTPMOCK_JSC_API JSClassRef JSClassCreate(const JSClassDefinition *definition);
HTTPMOCK_JSC_API void JSClassRelease(JSClassRef jsClass);
HTTPMOCK_JSC_API JSObjectRef JSObjectMake(JSContextRef ctx, JSClassRef jsClass, void *data);
HTTPMOCK_JSC_API JSValueRef JSObjectGetProperty(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef *exception);
HTTPMOCK_JSC_API void JSObjectSetProperty(
    JSContextRef ctx, JSObjectRef object, JSStringRef propertyName, JSValueRef value, JSPropertyAttributes attributes,
    JSValueRef *exception);
HTTPMOCK_JSC_API void *JSObjectGetPrivate(JSObjectRef object);
HTTPMOCK_JSC_API JSValueRef JSObjectCallAsFunction(
    JSContextRef ctx, JSObjectRef object, JSObjectRef thisObject, size_t argumentCount, const JSValueRef arguments[],
    JSValueRef *exception);
HTTPMOCK_JSC_API JSObjectRef JSObjectMakeArrayBufferWithBytesNoCopy(
    JSContextRef ctx, void *bytes, size_t byteLength, JSTypedArrayBytesDeallocator bytesDeallocator, void *deallocatorContext,
    JSValueRef *exception);

// MARK: - Values (JSValueRef.h)

HTTPMOCK_JSC_API bool JSValueIsNumber(JSContextRef ctx, JSValueRef value);
HTTPMOCK_JSC_API JSValueRef JSValueMakeUndefined(JSContextRef ctx);
HTTPMOCK_JSC_API JSValueRef JSValueMakeNull(JSContextRef ctx);
HTTPMOCK_JSC_API JSValueRef JSValueMakeFromJSONString(JSContextRef ctx, JSStringRef string);
HTTPMOCK_JSC_API double JSValueToNumber(JSContextRef ctx, JSValueRef value, JSValueRef *exception);
HTTPMOCK_JSC_API JSStringRef JSValueToStringCopy(JSContextRef ctx, JSValueRef value, JSValueRef *exception);
HTTPMOCK_JSC_API JSObjectRef JSValueToObject(JSContextRef ctx, JSValueRef value, JSValueRef *exception);

// MARK: - Strings (JSStringRef.h)

HTTPMOCK_JSC_API JSStringRef JSStringCreateWithUTF8CString(const char *string);
HTTPMOCK_JSC_API void JSStringRelease(JSStringRef string);
HTTPMOCK_JSC_API size_t JSStringGetLength(JSStringRef string);
HTTPMOCK_JSC_API size_t JSStringGetMaximumUTF8CStringSize(JSStringRef string);
HTTPMOCK_JSC_API size_t JSStringGetUTF8CString(JSStringRef string, char *buffer, size_t bufferSize);

// MARK: - Exported by the library, absent from its public headers (SPEC §23: WebAssembly off,
// scripts stopped, memory given back after a script is stopped)

/// Called when a script has run past its limit; returning true terminates it.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// Limits how long scripts of the group may run; the callback decides whether to terminate.
HTTPMOCK_JSC_API void JSContextGroupSetExecutionTimeLimit(
    JSContextGroupRef group, double limit, JSShouldTerminateCallback callback, void *context);

/// Removes the limit set by JSContextGroupSetExecutionTimeLimit.
HTTPMOCK_JSC_API void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

/// Collects the group's garbage now.
HTTPMOCK_JSC_API void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

/// The option setter of JavaScriptCore's GLib API (`gboolean` is `int`): valid only before the
/// first virtual machine of the process is created. Returns whether the option exists.
HTTPMOCK_JSC_API int jsc_options_set_boolean(const char *option, int value);

/// WTF::releaseFastMallocFreeMemory(): gives the allocator's free pages back to the system.
HTTPMOCK_JSC_API void HTTPMockReleaseJavaScriptCoreFreeMemory(void);

#ifdef __cplusplus
}
#endif

#endif
