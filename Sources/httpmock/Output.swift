#if Server
import Foundation

/// Writes a line to standard output at once (standard output is a pipe under a test).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
#endif
