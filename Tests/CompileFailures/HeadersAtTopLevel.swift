// expected-error: Headers apply to a scope: put them inside Host(
import HTTPMock

func register(_ mock: HTTPMock) {
    mock.registerResponses {
        Headers(["X-Env": "Test"])
    }
}
