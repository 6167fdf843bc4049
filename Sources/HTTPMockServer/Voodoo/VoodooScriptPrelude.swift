#if Server
/// The JavaScript every Voodoo script context starts with: Voodoo's `Response` and `Body`
/// helpers, `console.log` (collected per call, then written to the log), the call wrapper, and
/// the limits of the Guarantees guide that a script can only meet inside the engine.
enum VoodooScriptPrelude {
    /// The longest answer (the response's JSON, body included) a script may return, in characters.
    static let maximumAnswerLength = 64 << 20
    /// The largest `ArrayBuffer` or typed array a script may make, in bytes: one native call
    /// that fills gigabytes at once cannot be interrupted by the watchdog.
    static let maximumBufferBytes = 64 << 20

    static let source = #"""
        (function () {
            // WebAssembly loops never check the time limit (the Linux build also turns it off).
            delete globalThis.WebAssembly;
            var limit = \#(maximumBufferBytes);
            function guard(Original) {
                var unit = Original.BYTES_PER_ELEMENT || 1;
                var Guarded = new Proxy(Original, {
                    construct: function (target, args, newTarget) {
                        var size = args[0];
                        var length = typeof size === 'number' ? size
                            : (size !== null && typeof size === 'object' && typeof size.length === 'number' ? size.length : 0);
                        if (length * unit > limit) {
                            throw new RangeError(Original.name + ' of ' + (length * unit) + ' bytes refused: a script may allocate at most ' + limit + ' bytes at once');
                        }
                        return Reflect.construct(target, args, newTarget === Guarded ? target : newTarget);
                    }
                });
                Object.defineProperty(Original.prototype, 'constructor', { value: Guarded, writable: true, configurable: true });
                globalThis[Original.name] = Guarded;
            }
            [ArrayBuffer, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
             Float32Array, Float64Array, BigInt64Array, BigUint64Array].forEach(function (type) {
                if (typeof type === 'function') { guard(type); }
            });
        })();
        // `__voodooLog` (native) writes a line to the log at once: a script that never ends still
        // shows what it logged. At most 100 lines of 4 KB per call.
        var __voodooLogCount = 0;
        var console = { log: function () {
            if (__voodooLogCount >= 100) { return; }
            __voodooLogCount += 1;
            var line = Array.prototype.map.call(arguments, function (a) {
                return typeof a === 'string' ? a : JSON.stringify(a); }).join(' ');
            __voodooLog(line.length > 4096 ? line.slice(0, 4096) + '…' : line);
        } };
        console.info = console.log; console.warn = console.log; console.error = console.log; console.debug = console.log;
        var Body = {
            empty: function () { return { kind: 'empty' }; },
            text: function (text, templateData) { return { kind: 'text', value: text, templateData: templateData }; },
            json: function (data, templateData) { return { kind: 'json', value: data, templateData: templateData }; },
            yaml: function (data, templateData) { return { kind: 'yaml', value: data, templateData: templateData }; },
            file: function (path, contentType) { return { kind: 'file', value: path, contentType: contentType }; },
            template: function (name, contentType, templateData) {
                return { kind: 'template', value: name, contentType: contentType, templateData: templateData }; }
        };
        function __voodooResponse(status, body, headers) {
            return { __voodoo: true, status: status, body: body === undefined ? null : body, headers: headers === undefined ? null : headers };
        }
        var Response = {
            raw: function (code, body, headers) { return __voodooResponse(code, body, headers); },
            ok: function (body, headers) { return __voodooResponse(200, body, headers); },
            created: function (body, headers) { return __voodooResponse(201, body, headers); },
            accepted: function (body, headers) { return __voodooResponse(202, body, headers); },
            movedPermanently: function (url) { return __voodooResponse(301, null, { Location: url }); },
            temporaryRedirect: function (url) { return __voodooResponse(307, null, { Location: url }); },
            permanentRedirect: function (url) { return __voodooResponse(308, null, { Location: url }); },
            badRequest: function (body, headers) { return __voodooResponse(400, body, headers); },
            unauthorised: function (body, headers) { return __voodooResponse(401, body, headers); },
            forbidden: function (body, headers) { return __voodooResponse(403, body, headers); },
            notFound: function () { return __voodooResponse(404); },
            notAcceptable: function () { return __voodooResponse(406); },
            tooManyRequests: function () { return __voodooResponse(429); },
            internalServerError: function (body, headers) { return __voodooResponse(500, body, headers); }
        };
        function __voodooCall(request, cacheData, body) {
            __voodooLogCount = 0;
            request.body = body;
            // Voodoo's cache: a key never set reads null; setting null (or undefined) removes it.
            var cache = new Proxy(cacheData, {
                get: function (target, key) {
                    if (key in target) { return target[key]; }
                    return typeof key === 'string' ? null : undefined;
                },
                set: function (target, key, value) {
                    if (value === null || value === undefined) { delete target[key]; } else { target[key] = value; }
                    return true;
                },
                deleteProperty: function (target, key) { delete target[key]; return true; }
            });
            var result = response(request, cache);
            if (result === null || typeof result !== 'object' || result.__voodoo !== true) {
                throw new Error('response(request, cache) returned ' + (result === undefined ? 'nothing' : String(result))
                    + ', not a Response (use Response.ok(…), Response.raw(…), …)');
            }
            var status = result.status;
            if (typeof status !== 'number' || !isFinite(status) || Math.floor(status) !== status || status < 200 || status > 599) {
                throw new Error('the response status ' + String(status) + ' is not an HTTP status (200…599'
                    + (typeof status === 'number' && status >= 100 && status < 200 ? '; 1xx is not a final response' : '') + ')');
            }
            var limit = \#(maximumAnswerLength);
            var value = result.body !== null && typeof result.body === 'object' ? result.body.value : result.body;
            if (typeof value === 'string' && value.length > limit) {
                throw new RangeError('the response body has ' + value.length + ' characters, more than the ' + limit + ' a script may answer');
            }
            var text = JSON.stringify({ response: result, cache: cacheData });
            if (text.length > limit) {
                throw new RangeError('the response is ' + text.length + ' characters of JSON, more than the ' + limit + ' a script may answer');
            }
            return text;
        }
        """#
}
#endif
