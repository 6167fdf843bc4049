/// Just enough of the GraphQL lexer to find an operation's name: comments (`# …`) and strings
/// (`"…"`, `"""…"""`) are skipped, and only top-level `query`/`mutation`/`subscription` keywords
/// count, so neither a comment nor a field named `query` is taken for the operation.
enum GraphQLDocument {
    static func firstOperationName(in document: String) -> String? {
        let scalars = Array(document.unicodeScalars)
        var index = 0
        var depth = 0
        var expectingName = false

        func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool { isNameStart(scalar) || ("0"..."9").contains(scalar) }
        func starts(with text: String, at position: Int) -> Bool {
            let pattern = Array(text.unicodeScalars)
            guard position + pattern.count <= scalars.count else { return false }
            return Array(scalars[position..<position + pattern.count]) == pattern
        }

        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "#" {  // a comment runs to the end of the line
                while index < scalars.count, scalars[index] != "\n", scalars[index] != "\r" { index += 1 }
            } else if starts(with: "\"\"\"", at: index) {  // a block string
                index += 3
                while index < scalars.count, !starts(with: "\"\"\"", at: index) {
                    index += starts(with: "\\\"\"\"", at: index) ? 4 : 1
                }
                index += 3
            } else if scalar == "\"" {  // a string
                index += 1
                while index < scalars.count, scalars[index] != "\"", scalars[index] != "\n" {
                    index += scalars[index] == "\\" ? 2 : 1
                }
                index += 1
            } else if scalar == "{" || scalar == "(" || scalar == "[" {
                if expectingName, depth == 0 { return nil }  // `query {…}`, `query ($v: …)`: anonymous
                depth += 1
                index += 1
            } else if scalar == "}" || scalar == ")" || scalar == "]" {
                depth = max(0, depth - 1)
                index += 1
            } else if isNameStart(scalar) {
                var end = index
                while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
                let word = String(String.UnicodeScalarView(scalars[index..<end]))
                if depth == 0 {
                    if expectingName { return word }
                    expectingName = ["query", "mutation", "subscription"].contains(word)
                }
                index = end
            } else {
                index += 1
            }
        }
        return nil
    }
}
