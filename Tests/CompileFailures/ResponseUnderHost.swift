// expected-error: a MockResponse needs a path: put it inside Path("/…") { … }
import HTTPMock

func register(_ mock: HTTPMock) {
    mock.registerResponses {
        Host("api.example.com") {
            MockResponse.plaintext("no path")
        }
    }
}
