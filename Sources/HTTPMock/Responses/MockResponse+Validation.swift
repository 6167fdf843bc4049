extension MockResponse {
    /// Why this response cannot be sent as it is (a status that is not a final HTTP status, a
    /// header that would split the response), or an empty list. Registration checks every
    /// response with it; both transports check what a dynamic handler or a `.mock(…)` policy
    /// produced, which was never registered.
    var sendingProblems: [String] {
        var problems: [String] = []
        func check(_ status: HTTPStatus, _ headers: HTTPHeaders) {
            if let problem = status.finalResponseProblem { problems.append(problem) }
            problems += headers.problems
        }
        switch payload {
        case .http(let http): check(http.status, http.headers)
        case .fault(_, let head): check(head.status, head.headers)
        case .dynamic(let handler):
            if let declared = handler.declared { check(declared.status, declared.headers) }
        case .failure, .passthrough, .invalid: break
        }
        return problems
    }
}
