#if Server
import ArgumentParser

/// How `serve`'s code runs: as `serve`, or as Voodoo's `run`.
enum ServeMode {
    case serve
    /// Voodoo's `run`: without a port it tries 8080–8090, and standard output is the
    /// server's URL alone, its first line, which a script reads from a file or pipe while the
    /// server keeps running (Voodoo.md's recipe); the log goes to standard error.
    case run
}

/// `httpmock run`: Voodoo's command, `serve` with Voodoo's defaults (see ``ServeMode/run``).
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Voodoo's run: serve until SIGINT or SIGTERM, printing the server's URL alone on standard output.",
        discussion:
            "Takes every serve option. Without --port or --port-range the server binds the first free port of 8080-8090 (Voodoo's default) and fails naming the range when none is free. Standard output is the URL; the log goes to standard error."
    )

    @OptionGroup var serve: ServeOptions

    func run() async throws { try await serve.serve(as: .run) }
}
#endif
