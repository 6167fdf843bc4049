import HTTPMock

/// Uses the library, so the check also proves it builds without the trait.
public let consumerMock = HTTPMock()
