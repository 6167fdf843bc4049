// expected-error: a Host cannot be inside a Path: close the Path { … } first
import HTTPMock

func register(_ mock: HTTPMock) {
    mock.registerResponses {
        Host("api.example.com") {
            Path("/a") {
                Host("other.example.com") {
                    Path("/b") { MockResponse.empty() }
                }
            }
        }
    }
}
