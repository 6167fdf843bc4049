// expected-error: a MockResponse needs a route: put it inside Path(
import HTTPMock

func register(_ mock: HTTPMock) {
    mock.registerResponses {
        MockResponse.plaintext("no route")
    }
}
