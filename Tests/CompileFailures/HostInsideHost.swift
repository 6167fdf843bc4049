// expected-error: hosts do not nest: close this Host { … } before opening another
import HTTPMock

func register(_ mock: HTTPMock) {
    mock.registerResponses {
        Host("api.example.com") {
            Host("other.example.com") {
                Path("/b") { MockResponse.empty() }
            }
        }
    }
}
