#if Server
// The dashboard page: one self-contained document, inline CSS and JavaScript, no
// framework, no external asset. Every value it shows is set as text (`textContent`, attribute
// values through `setAttribute`), never parsed as HTML: a URL, header or report cannot run a
// script. Its script is in Dashboard+Script.swift.

/// The dashboard page.
enum Dashboard {
    static let page = head + body + "<script>\n" + script + "\n</script>\n</body>\n</html>\n"

    private static let head = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>HTTPMock dashboard</title>
        <link rel="icon" href="data:,">
        <style>
        :root { --ok: #1a7f37; --redirect: #0969da; --warn: #9a6700; --warn-bg: #fff8c5; --bad: #cf222e; --bad-bg: #ffebe9;
          --muted: #57606a; --line: #d0d7de; font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #f6f8fa; color: #1f2328; }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .6rem 1rem; background: #24292f; color: #fff; }
        header h1 { font-size: 1.05rem; margin: 0; }
        header input { flex: 1 1 12rem; min-width: 0; font: inherit; padding: .3rem .5rem; border-radius: 6px; border: 1px solid #57606a; }
        .live { font-size: .8rem; color: #8ddb8c; }
        .live.off { color: #ff8182; }
        button { font: inherit; padding: .25rem .7rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
        button.primary { background: var(--ok); color: #fff; border-color: var(--ok); }
        .notice { margin: .6rem 1rem 0; padding: .4rem .7rem; border-radius: 6px; background: #ddf4ff; font-size: .85rem; }
        .notice:empty { display: none; }
        main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; padding: 1rem; }
        @media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); } }
        section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; margin-bottom: 1rem; min-width: 0; }
        h2 { font-size: .95rem; margin: 0 0 .4rem; }
        h3 { font-size: .8rem; margin: .5rem 0 .2rem; }
        ul { list-style: none; margin: 0; padding: 0; }
        li { padding: .35rem 0; border-top: 1px solid #eaeef2; font-size: .8rem; overflow-wrap: anywhere; min-width: 0; }
        .mono, .line, pre, td { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
        .line { cursor: pointer; }
        .line:focus { outline: 2px solid var(--redirect); }
        .status { display: inline-block; min-width: 2.6rem; font-weight: 600; text-align: center; border-radius: 4px; padding: 0 .2rem; }
        .s2 .status { color: var(--ok); }
        .s3 .status { color: var(--redirect); }
        .s4 .status { color: var(--warn); background: var(--warn-bg); }
        .s5 .status, .s0 .status { color: #fff; background: var(--bad); }
        .badge { display: inline-block; font-size: .7rem; border: 1px solid currentColor; border-radius: 10px; padding: 0 .4rem; margin-left: .3rem; font-family: inherit; }
        .badge.miss { color: var(--bad); }
        .badge.matched { color: var(--ok); }
        .badge.admin { color: #8250df; }
        .muted { color: var(--muted); }
        .hint { font-size: .8rem; margin: 0 0 .3rem; }
        pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0 0; padding: .4rem; border-radius: 4px; font-size: .75rem; max-height: 20rem; overflow: auto; background: #f6f8fa; }
        pre.report { background: var(--warn-bg); }
        .detail { margin-top: .4rem; padding: .5rem; border: 1px solid var(--line); border-radius: 6px; background: #fbfcfd; }
        .columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .8rem; }
        @media (max-width: 700px) { .columns { grid-template-columns: minmax(0, 1fr); } }
        table { border-collapse: collapse; width: 100%; table-layout: fixed; font-size: .75rem; }
        td { border-top: 1px solid #eaeef2; padding: .15rem .3rem; vertical-align: top; overflow-wrap: anywhere; }
        td:first-child { width: 35%; color: var(--muted); }
        .conditions li { border: 0; padding: .05rem 0 0 .8rem; }
        .empty { color: var(--muted); font-family: inherit; }
        select { font: inherit; max-width: 100%; }
        dialog { width: min(42rem, calc(100vw - 1.5rem)); max-height: calc(100vh - 2rem); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; }
        dialog h2 { font-size: 1rem; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; min-width: 0; }
        label { display: block; margin: .3rem 0; font-size: .85rem; }
        label input[type=text], label input[type=number], textarea { width: 100%; font: inherit; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; padding: .2rem .3rem; }
        .row { display: flex; gap: .4rem; align-items: center; font-size: .8rem; margin: .15rem 0; }
        .row input[type=text] { flex: 1 1 8rem; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
        .row .name { flex: 0 1 10rem; overflow-wrap: anywhere; }
        .error { color: var(--bad); font-size: .85rem; }
        .error:empty { display: none; }
        .buttons { display: flex; justify-content: flex-end; gap: .5rem; }
        /* Save stays in view however many headers the request had: the lists scroll, and the
           buttons stick to the dialog's bottom edge. */
        #stub-query, #stub-headers { max-height: 9rem; overflow: auto; }
        dialog .buttons { position: sticky; bottom: -.8rem; background: #fff; padding: .5rem 0 .8rem; border-top: 1px solid var(--line); }
        dialog fieldset { margin: .3rem 0; }
        dialog p.muted { margin: .2rem 0; font-size: .8rem; }
        li.entry { cursor: pointer; }
        </style>
        </head>

        """#

    private static let body = #"""
        <body>
        <header>
          <h1>HTTPMock dashboard</h1>
          <input type="search" id="filter" data-testid="filter" placeholder="Filter: method, path, status, route, miss…" aria-label="Filter requests and routes">
          <span id="live" class="live off">connecting…</span>
          <button type="button" data-testid="reset" id="reset" title="Asks first">Reset…</button>
        </header>
        <p id="notice" class="notice" role="status"></p>
        <main>
          <section>
            <h2>Requests <span id="shown" class="muted"></span></h2>
            <p class="muted hint">Click a request anywhere for its headers, bodies and time. A miss has “Stub this”.</p>
            <ul id="requests"></ul>
          </section>
          <div>
            <section><h2>Routes <span id="route-count" class="muted"></span></h2><ul id="routes"></ul></section>
            <section><h2>Scenarios</h2><ul id="scenarios"></ul></section>
            <section><h2>Store</h2><ul id="store"></ul></section>
          </div>
        </main>
        <dialog id="stub-editor" data-testid="stub-editor" aria-labelledby="stub-title">
          <form id="stub-form">
            <h2 id="stub-title">Stub this request</h2>
            <p class="muted">Saved with POST /__admin/mappings (a WireMock mapping): the same request is answered from then on.</p>
            <fieldset>
              <legend>When a request has</legend>
              <label>Method <input type="text" id="stub-method" data-testid="stub-method" required></label>
              <label>Path <input type="text" id="stub-path" data-testid="stub-path" required></label>
              <div id="stub-query"></div>
              <div id="stub-headers"></div>
            </fieldset>
            <fieldset>
              <legend>Answer</legend>
              <label>Status <input type="number" id="stub-status" data-testid="stub-status" min="100" max="599" value="200" required></label>
              <label>Content-Type <input type="text" id="stub-content-type" value="application/json"></label>
              <label>Body <textarea id="stub-body" data-testid="stub-body" rows="5">{}</textarea></label>
              <label>Name <input type="text" id="stub-name"></label>
            </fieldset>
            <p id="stub-error" class="error" role="alert"></p>
            <div class="buttons">
              <button type="button" id="stub-cancel">Cancel</button>
              <button type="submit" class="primary" data-testid="stub-save">Save stub</button>
            </div>
          </form>
        </dialog>

        """#
}
#endif
