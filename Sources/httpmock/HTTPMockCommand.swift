#if Server
import ArgumentParser
import Foundation
import HTTPMock

/// `httpmock`: serves a mocks folder over HTTP, Espresso-Martini-compatible.
@main
struct HTTPMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "httpmock",
        abstract: "Serve HTTPMock mocks over HTTP/1.1, HTTP/2 and HTTPS.",
        subcommands: [Serve.self, Run.self, Routes.self, CA.self],
        defaultSubcommand: Serve.self
    )

    /// ArgumentParser's `main()`, with three differences: a closed standard output does not end
    /// the process (SIGPIPE ignored, see ``Output``); a mistyped subcommand (`httpmock serv`) is
    /// called one, not taken for a mocks folder; and an error of a subcommand's `run()` prints
    /// that subcommand's usage, not the top-level one.
    static func main() async {
        Output.ignoreBrokenPipes()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let message = unknownSubcommand(first) {
            complain("Error: \(message)\nUsage: \(usageString())\n  See 'httpmock --help' for more information.")
            Output.flush()
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            Output.flush()
        } catch let error as ValidationError {
            let name = type(of: command)._commandName
            complain(
                "Error: \(error.message)\nUsage: \(usageString(for: type(of: command)))\n  See 'httpmock \(name) --help' for more information."
            )
            Output.flush()
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            Output.flush()
            exit(withError: error)
        }
    }

    /// The message for a first argument that is neither an option, a subcommand nor an existing
    /// path but close to a subcommand's name; `nil` otherwise (a mocks folder for `serve`).
    static func unknownSubcommand(_ argument: String) -> String? {
        guard !argument.hasPrefix("-"), !FileManager.default.fileExists(atPath: argument) else { return nil }
        var names = ["help"]
        for subcommand in configuration.subcommands {
            names.append(subcommand._commandName)
            names += subcommand.configuration.aliases
        }
        guard !names.contains(argument), let closest = ServerSettings.closest(to: argument, among: names) else { return nil }
        return "Unknown subcommand '\(argument)' (nor is it a mocks folder). Did you mean '\(closest)'?"
    }
}
#else
import Foundation

/// Without the `Server` trait the CLI has nothing to serve with.
@main
enum HTTPMockCommand {
    static func main() {
        FileHandle.standardError.write(
            Data(
                "httpmock needs the Server trait: swift build -c release --product httpmock --traits Server,JavaScript (then .build/release/httpmock; README.md, \"Command line\")\n"
                    .utf8))
        exit(1)
    }
}
#endif
