//! What an HTTP server on the platform hands its service, and what it gets
//! back: a request read whole within its limits, an answer, and the service
//! that turns one into the other (`serve`'s gallery). Beneath the server
//! (native: hyper on tokio) and the services it runs, so neither imports the other.

use bytes::Bytes;

/// A request, read whole within the limits.
#[derive(Debug, Default)]
pub(crate) struct Request<'a> {
    /// `GET`, `POST` …
    pub(crate) method: &'a str,
    /// The path, as sent (`/api/cards/report-x`), still percent-encoded.
    pub(crate) path: &'a str,
    /// The query without its `?`.
    pub(crate) query: &'a str,
    /// The `Authorization` header.
    pub(crate) authorization: Option<&'a str>,
    /// Whether `Accept-Encoding` lists gzip.
    pub(crate) accepts_gzip: bool,
    /// The `If-None-Match` header.
    pub(crate) if_none_match: Option<&'a str>,
    /// The body.
    pub(crate) body: &'a [u8],
}

/// An answer.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    /// The HTTP status.
    pub(crate) status: u16,
    /// Headers beyond the length: `Content-Type` first.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The body.
    pub(crate) body: Bytes,
}

impl Response {
    pub(crate) fn new(status: u16, content_type: &str, body: impl Into<Bytes>) -> Response {
        Response { status, headers: vec![("content-type", content_type.to_owned())], body: body.into() }
    }

    /// A JSON answer.
    pub(crate) fn json(status: u16, value: &serde_json::Value) -> Response {
        Response::new(status, "application/json", value.to_string())
    }

    /// A one-line JSON error: `{"error": message}`.
    pub(crate) fn error(status: u16, message: impl std::fmt::Display) -> Response {
        Response::json(status, &serde_json::json!({ "error": message.to_string() }))
    }

    pub(crate) fn html(body: impl Into<Bytes>) -> Response {
        let mut response = Response::new(200, "text/html; charset=utf-8", body);
        response.headers.push(("cache-control", "no-cache".to_owned()));
        response
    }

    pub(crate) fn with(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }
}

/// What answers the server's requests: refusals before a body is read, the
/// answer to a whole request, and the words for the server's own refusals.
pub(crate) trait HttpService: Send + Sync + 'static {
    /// What is refused from the headers alone (`content_length` as announced), if anything.
    fn refuse_early(&self, request: &Request<'_>, content_length: Option<u64>) -> Option<Response>;
    /// The answer to a whole request.
    fn handle(&self, request: &Request<'_>) -> Response;
    /// The answer to a body that did not arrive within `seconds`.
    fn too_slow(&self, seconds: u64) -> Response;
    /// The answer to a body over the limit.
    fn too_large(&self) -> Response;
}
