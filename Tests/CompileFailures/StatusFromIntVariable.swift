// expected-error: for an Int variable write status: HTTPStatus(code)
import HTTPMock

func register(_ mock: HTTPMock, code: Int) {
    // Literals and constants still compile (the HTTPStatus factories win over the hint).
    mock.addResponses(forPath: "/a", responses: [.empty(status: 418), .plaintext("x", status: .notFound), .json("{}", status: 201)])
    mock.addResponses(forPath: "/b", responses: [.empty(status: HTTPStatus(code))])
    // The mistake: an Int variable.
    mock.addResponses(forPath: "/c", responses: [.empty(status: code)])
}
