//! What an HTTP server hands its service, and what it gets back: a request
//! read whole within its limits, an answer (whole, or written as it goes),
//! and the service that turns one into the other (`serve`'s gallery).
//! Beneath the server (natively hyper on tokio, `platform::run_http_server`)
//! and the services it runs, so neither imports the other. HTTP is no
//! platform difference: this is the crate's, beside `serve/`.

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
    /// The name the request was sent to: the absolute URI's authority, else the
    /// `Host` header (`127.0.0.1:8000`), as sent.
    pub(crate) host: Option<&'a str>,
    /// The `Authorization` header.
    pub(crate) authorization: Option<&'a str>,
    /// The `Cookie` headers, joined with `; `.
    pub(crate) cookie: Option<&'a str>,
    /// Whether `Accept-Encoding` lists gzip.
    pub(crate) accepts_gzip: bool,
    /// The `If-None-Match` header.
    pub(crate) if_none_match: Option<&'a str>,
    /// The body.
    pub(crate) body: &'a [u8],
}

/// What writes a streamed answer's body: called once, on a thread that may
/// block, with a writer that hands the bytes on in bounded chunks as they
/// come. An error from the writer means the client is gone: stop.
pub(crate) type BodyWriter = Box<dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + Send>;

/// An answer's body.
pub(crate) enum Body {
    /// All of it, at once.
    Full(Bytes),
    /// Written as it goes (the archive of every card), never whole in memory.
    Stream(BodyWriter),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Full(bytes) => write!(f, "Full({} bytes)", bytes.len()),
            Body::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// An answer.
#[derive(Debug)]
pub(crate) struct Response {
    /// The HTTP status.
    pub(crate) status: u16,
    /// Headers beyond the length: `Content-Type` first.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The body.
    pub(crate) body: Body,
}

impl Response {
    pub(crate) fn new(status: u16, content_type: &str, body: impl Into<Bytes>) -> Response {
        Response { status, headers: vec![("content-type", content_type.to_owned())], body: Body::Full(body.into()) }
    }

    /// A streamed answer: `write` makes the body as the client takes it.
    pub(crate) fn stream(status: u16, content_type: &str, write: BodyWriter) -> Response {
        Response { status, headers: vec![("content-type", content_type.to_owned())], body: Body::Stream(write) }
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

    /// The body when it is whole (tests; a streamed one is `None`).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Option<&Bytes> {
        match &self.body {
            Body::Full(bytes) => Some(bytes),
            Body::Stream(_) => None,
        }
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
