#if Server
/// The JavaScript every Voodoo script context starts with: Voodoo's `Response` and `Body`
/// helpers, `console.log` (collected per call, then written to the log) and the call wrapper.
enum VoodooScriptPrelude {
    static let source = #"""
        var __voodooLogs = [];
        var console = { log: function () { __voodooLogs.push(Array.prototype.map.call(arguments, function (a) {
            return typeof a === 'string' ? a : JSON.stringify(a); }).join(' ')); } };
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
        function __voodooCall(request, cache) {
            __voodooLogs = [];
            var result = response(request, cache);
            if (result === null || typeof result !== 'object' || result.__voodoo !== true) {
                throw new Error('response(request, cache) returned ' + (result === undefined ? 'nothing' : JSON.stringify(result))
                    + ', not a Response (use Response.ok(…), Response.raw(…), …)');
            }
            return JSON.stringify({ response: result, cache: cache });
        }
        """#
}
#endif
