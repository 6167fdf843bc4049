/// Default `Content-Type` values for file bodies, by file extension.
enum ContentType {
    static func forPathExtension(_ pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "json": return "application/json"
        case "txt", "text": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "csv": return "text/csv; charset=utf-8"
        case "md": return "text/markdown; charset=utf-8"
        case "xml": return "application/xml"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "yaml", "yml": return "application/yaml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "svg": return "image/svg+xml"
        case "ico": return "image/x-icon"
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        case "gz": return "application/gzip"
        case "wasm": return "application/wasm"
        case "mp3": return "audio/mpeg"
        case "mp4": return "video/mp4"
        case "woff2": return "font/woff2"
        default: return "application/octet-stream"
        }
    }
}
