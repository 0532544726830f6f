//! What the server answers, request by request, with no network in sight:
//! the platform's HTTP half ([`crate::platform::run_http_server`]) reads a
//! request within its limits and hands it here as a [`Request`].
//!
//! ```text
//! any    a Host it was not started for    421, one line: how to allow it (--host NAME)
//! GET    /  /index.html  /<site file>     the page (gzip when asked, ETag, no-cache)
//! GET    /cards                (token)    the gallery (src/serve/gallery.html); without: how to get in
//! GET    /cards/compare        (token)    compare --html of the cards not left out
//! GET    /cards.tar.gz         (token)    every card file in one archive, streamed
//! GET    /api/cards            (token)    {"version", "cards": [{id, name, screen, created, left_out}]}
//! GET    /api/cards/ID         (token)    one card as it was posted
//! POST   /api/cards            (token)    a new card: 201 {"id"}, or 4xx {"error": compare's reason}
//! PATCH  /api/cards/ID         (token)    {"name": "…" | null, "left_out": bool}
//! DELETE /api/cards/ID         (token)    the card's file goes
//! ```
//!
//! The token comes as `Authorization: Bearer TOKEN` or `?token=TOKEN`, and
//! for reads also as the cookie an address with `?token=` sets (HttpOnly,
//! SameSite=Strict), so that the gallery's links, its comparison frame and a
//! reload work once the page has taken the token off its address. Writes
//! never take the cookie: another site on this machine could send it. Every
//! answer that is not a page is JSON, an error one line: `{"error": "…"}`.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;

use super::site::Site;
use super::store::{AddError, EditError, Store};
use crate::http_message::{HttpService, Request, Response};
use crate::platform::read_limited::MAX_JSON_BYTES;
use crate::report_card::comparison::{Source, compare_html};
use crate::report_card::judge::MAX_DRIFT_MS_PER_MIN;

/// The gallery page's markup: no token in it (it reads the one in its own address).
const GALLERY_HTML: &str = include_str!("gallery.html");

/// The request took longer than the server waits for one.
pub(crate) fn too_slow(seconds: u64) -> Response {
    Response::error(408, format!("the request did not arrive within {seconds} s: send it whole, at once"))
}

/// The body is over [`MAX_JSON_BYTES`]: `compare`'s limit, in its words.
pub(crate) fn too_large() -> Response {
    Response::error(
        413,
        format!("the card is larger than {} MB, the most this reads (is it the right file?)", MAX_JSON_BYTES >> 20),
    )
}

/// Archives streamed at once: each holds about 1 MB (its chunks, gzip's
/// state) and a core while it compresses; a 9th is asked to come back.
pub(crate) const MAX_ARCHIVES: usize = 8;

/// Who may ask what: the token, and the names the server answers to.
#[derive(Debug, Clone)]
pub(crate) struct Access {
    /// The token (32 hex digits).
    pub(crate) token: String,
    /// The names requests may be sent to, lowercase, IPv6 in brackets
    /// (`localhost`, `127.0.0.1`, `[::1]`, the printed addresses, `--host`'s).
    pub(crate) hosts: Vec<String>,
    /// The port listened on: a Host's port, when given, must be it.
    pub(crate) port: u16,
}

impl Access {
    /// The loopback names, `printed` (the addresses the banner gives) and `extra` (`--host`).
    pub(crate) fn new(token: String, port: u16, printed: &[std::net::IpAddr], extra: &[String]) -> Access {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"].map(str::to_owned).to_vec();
        hosts.extend(printed.iter().map(|ip| host_name(&ip.to_string())));
        hosts.extend(extra.iter().map(|name| host_name(name)));
        hosts.sort();
        hosts.dedup();
        Access { token, hosts, port }
    }

    /// The cookie that carries the token for reads: one per port, as two servers on one machine share cookies.
    fn cookie_name(&self) -> String {
        format!("timestep-lab-{}", self.port)
    }

    /// Whether `host` (a Host header, `name[:port]`) is a name this server answers to.
    fn serves(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let (name, port) = split_host(host);
        self.hosts.contains(&name) && port.is_none_or(|p| p == self.port.to_string())
    }
}

/// A host name as compared: lowercase, no trailing dot, an IPv6 address in brackets.
pub(crate) fn host_name(name: &str) -> String {
    let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
    if name.parse::<std::net::Ipv6Addr>().is_ok() { format!("[{name}]") } else { name }
}

/// `name[:port]` (`[v6]:port` for IPv6) as the name (see [`host_name`]) and the port.
fn split_host(host: &str) -> (String, Option<&str>) {
    let host = host.trim();
    if host.starts_with('[') {
        return match host.split_once(']') {
            Some((inside, after)) => (host_name(&inside[1..]), after.strip_prefix(':')),
            None => (host.to_ascii_lowercase(), None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) => (host_name(name), Some(port)),
        None => (host_name(host), None),
    }
}

/// Whether a request for `path` needs the token: every write, and every read of the cards.
fn needs_token(method: &str, path: &str) -> bool {
    !matches!(method, "GET" | "HEAD")
        || path == "/cards"
        || path.starts_with("/cards/")
        || path == "/cards.tar.gz"
        || path == "/api"
        || path.starts_with("/api/")
}

/// The server and everything it keeps.
#[derive(Debug)]
pub(crate) struct Gallery {
    store: Mutex<Store>,
    site: Site,
    access: Access,
    /// The comparison page of the store's version it was made for.
    compared: Mutex<Option<(u64, Bytes)>>,
    /// Archives being streamed.
    archives: Arc<AtomicUsize>,
}

impl Gallery {
    /// A gallery of `store`, serving `site`, to whom `access` says.
    pub(crate) fn new(store: Store, site: Site, access: Access) -> Gallery {
        Gallery { store: Mutex::new(store), site, access, compared: Mutex::new(None), archives: Arc::default() }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while the lock was held left the store as it was between
        // two whole changes (each change is made last, after its file).
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What is refused before the body is read: a Host the server was not
    /// started for (421), a write or a read of the cards without the token
    /// (401), and a body announced larger than a card may be (413).
    pub(crate) fn refuse_early(&self, request: &Request<'_>, content_length: Option<u64>) -> Option<Response> {
        if !self.access.serves(request.host) {
            let name = request.host.map_or_else(|| "(none)".to_owned(), |h| split_host(h).0);
            let allow = if request.host.is_some() { name.clone() } else { "NAME".to_owned() };
            return Some(Response::error(
                421,
                format!(
                    "this server does not answer to the name {name}: start it with `--host {allow}` to allow that name"
                ),
            ));
        }
        if needs_token(request.method, request.path) && !self.authorized(request) {
            let why = if token_of(request).is_some() { "the token is wrong" } else { "no token" };
            let refused = if matches!(request.method, "GET" | "HEAD") && matches!(request.path, "/cards" | "/cards/") {
                let mut page = Response::new(401, "text/html; charset=utf-8", KNOCK_HTML.replace("WHY", why));
                page.headers.push(("cache-control", "no-store".to_owned()));
                page
            } else {
                let what = if matches!(request.method, "GET" | "HEAD") { "reading the cards" } else { "writing" };
                Response::error(
                    401,
                    format!(
                        "{why}: {what} needs the token in the address serve printed (?token=… or Authorization: Bearer …)"
                    ),
                )
            };
            return Some(refused.with("www-authenticate", "Bearer"));
        }
        content_length.filter(|&n| n > MAX_JSON_BYTES).map(|_| too_large())
    }

    /// Whether `request` carries the token: as a bearer or in the query, and for a read also as the cookie.
    fn authorized(&self, request: &Request<'_>) -> bool {
        let token = self.access.token.as_bytes();
        let read = matches!(request.method, "GET" | "HEAD");
        token_of(request).is_some_and(|given| same(given.as_bytes(), token))
            || (read
                && cookie_of(request, &self.access.cookie_name()).is_some_and(|given| same(given.as_bytes(), token)))
    }

    /// The answer to `request`.
    pub(crate) fn handle(&self, request: &Request<'_>) -> Response {
        if let Some(refused) = self.refuse_early(request, Some(request.body.len() as u64)) {
            return refused;
        }
        let mut answer = self.route(request);
        // An address with the token (the printed ones) leaves it as a cookie for the reads that follow.
        let query_token = form_urlencoded::parse(request.query.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v);
        if matches!(request.method, "GET" | "HEAD")
            && query_token.is_some_and(|given| same(given.as_bytes(), self.access.token.as_bytes()))
        {
            let cookie =
                format!("{}={}; Path=/; HttpOnly; SameSite=Strict", self.access.cookie_name(), self.access.token);
            answer.headers.push(("set-cookie", cookie));
        }
        answer
    }

    fn route(&self, request: &Request<'_>) -> Response {
        let path = request.path;
        match (request.method, path) {
            ("GET" | "HEAD", "/cards" | "/cards/") => Response::html(GALLERY_HTML),
            ("GET" | "HEAD", "/cards/compare") => self.comparison(),
            ("GET" | "HEAD", "/cards.tar.gz") => self.archive(),
            ("GET" | "HEAD", "/api/cards") => self.list(),
            ("POST", "/api/cards") => self.add(request.body),
            (method, _) if path.starts_with("/api/cards/") => {
                let id = &path["/api/cards/".len()..];
                match method {
                    "GET" | "HEAD" => self.card(id),
                    "PATCH" => self.edit(id, request.body),
                    "DELETE" => self.remove(id),
                    _ => not_allowed(method, path),
                }
            }
            ("GET" | "HEAD", _) => self.site_file(path, request),
            (method, _) => not_allowed(method, path),
        }
    }

    fn site_file(&self, path: &str, request: &Request<'_>) -> Response {
        let name = match path {
            "/" => "index.html",
            other => other.trim_start_matches('/'),
        };
        let Some(file) = self.site.get(name) else {
            return Response::error(404, format!("nothing at {path}: the page is /, the gallery /cards"));
        };
        if request.if_none_match.is_some_and(|tags| tags.split(',').any(|t| t.trim() == file.etag)) {
            return Response {
                status: 304,
                headers: vec![("etag", file.etag.clone())],
                body: crate::http_message::Body::Full(Bytes::new()),
            };
        }
        let (body, gzipped) = match (&file.gzip, request.accepts_gzip) {
            (Some(gzip), true) => (gzip.clone(), true),
            _ => (file.bytes.clone(), false),
        };
        let mut response = Response::new(200, file.content_type, body)
            .with("etag", file.etag.clone())
            .with("cache-control", "no-cache")
            .with("vary", "accept-encoding")
            // Cross-origin isolated where the browser allows it (localhost, https): finer
            // performance.now() and steadier requestAnimationFrame stamps (docs/serve.md).
            .with("cross-origin-opener-policy", "same-origin")
            .with("cross-origin-embedder-policy", "require-corp");
        if gzipped {
            response = response.with("content-encoding", "gzip");
        }
        response
    }

    fn list(&self) -> Response {
        let store = self.store();
        let cards: Vec<serde_json::Value> = store
            .entries()
            .iter()
            .map(|e| {
                let shown = e.shown();
                let refresh: Vec<String> = shown
                    .monitors
                    .iter()
                    .map(|m| {
                        m.refresh_hz().filter(|hz| hz.is_finite()).map_or_else(
                            || "refresh not yet measured".to_owned(),
                            |hz| format!("{} Hz", crate::report::trim_number(hz, 2)),
                        )
                    })
                    .collect();
                serde_json::json!({
                    "id": e.id,
                    "name": shown.machine.in_words(),
                    "renamed": e.name.is_some(),
                    "screen": refresh.join(", "),
                    "created": shown.created,
                    "left_out": e.left_out,
                })
            })
            .collect();
        Response::json(200, &serde_json::json!({ "version": store.version(), "cards": cards }))
            .with("cache-control", "no-store")
    }

    fn card(&self, id: &str) -> Response {
        let store = self.store();
        let Some(entry) = store.get(id) else { return Response::error(404, EditError::Unknown(id.to_owned())) };
        let path = store.dir().join(entry.file_name());
        match crate::platform::read_limited::read_limited(&path, MAX_JSON_BYTES) {
            Ok(bytes) => Response::new(200, "application/json", bytes)
                .with("content-disposition", format!("attachment; filename=\"{}\"", entry.file_name())),
            Err(err) => Response::error(500, err),
        }
    }

    fn add(&self, body: &[u8]) -> Response {
        let Ok(text) = std::str::from_utf8(body) else {
            return Response::error(400, "not valid JSON: the body is not UTF-8 text");
        };
        let added = self.store().add(text);
        match added {
            Ok(id) => {
                log::info!("serve: card {id} kept");
                Response::json(201, &serde_json::json!({ "id": id }))
            }
            Err(AddError::Io(err)) => Response::error(500, err),
            Err(AddError::Full) => Response::error(507, AddError::Full),
            Err(err) => Response::error(400, err),
        }
    }

    fn edit(&self, id: &str, body: &[u8]) -> Response {
        match parse_edit(body) {
            Ok((name, left_out)) => {
                let edited = self.store().edit(id, name, left_out);
                edited_response(edited)
            }
            Err(why) => Response::error(
                400,
                format!("not an edit ({{\"name\": \"…\" or null, \"left_out\": true or false}}): {why}"),
            ),
        }
    }

    fn remove(&self, id: &str) -> Response {
        let removed = self.store().remove(id);
        edited_response(removed)
    }

    fn comparison(&self) -> Response {
        let (version, sources) = {
            let store = self.store();
            let version = store.version();
            if let Some((made_for, page)) = self.compared.lock().ok().and_then(|c| c.clone())
                && made_for == version
            {
                return Response::html(page);
            }
            let sources: Vec<(String, Source)> = store
                .entries()
                .iter()
                .filter(|e| !e.left_out)
                .map(|e| (e.file_name(), Source::Card(Box::new(e.shown()))))
                .collect();
            (version, sources)
        };
        if sources.is_empty() {
            return Response::html(EMPTY_COMPARISON);
        }
        match compare_html(&sources, MAX_DRIFT_MS_PER_MIN) {
            Ok(page) => {
                let page = Bytes::from(page);
                if let Ok(mut cache) = self.compared.lock() {
                    *cache = Some((version, page.clone()));
                }
                Response::html(page)
            }
            Err(err) => Response::error(500, err),
        }
    }

    /// Every card file in one tar.gz, streamed: one file at a time from the
    /// disk into gzip into the client's chunks, so memory holds none whole.
    fn archive(&self) -> Response {
        let taken = self.archives.fetch_add(1, Ordering::SeqCst);
        let permit = ArchivePermit(Arc::clone(&self.archives));
        if taken >= MAX_ARCHIVES {
            drop(permit);
            return Response::error(
                503,
                format!("{MAX_ARCHIVES} archives are being sent already: try again in a minute"),
            )
            .with("retry-after", "30");
        }
        let files = self.store().files();
        Response::stream(
            200,
            "application/gzip",
            Box::new(move |out| {
                let _permit = permit;
                super::store::write_archive(&files, out)
            }),
        )
        .with("content-disposition", "attachment; filename=\"cards.tar.gz\"")
        .with("cache-control", "no-store")
    }
}

/// One of [`MAX_ARCHIVES`], given back when its archive is sent or dropped.
struct ArchivePermit(Arc<AtomicUsize>);

impl Drop for ArchivePermit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The gallery opened without its token: how to get in.
const KNOCK_HTML: &str = "<!DOCTYPE html><html lang=\"en\"><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>The gallery needs its token</title>\
<body style=\"font-family: system-ui, sans-serif\"><h1>The gallery needs its token (WHY)</h1>\
<p>Open the gallery's address as <code>timestep-lab serve</code> printed it, \
<code>http://…/cards?token=…</code>, or its QR code: the token in it lets this browser in until the server stops. \
A server started again has a new token: open its new address.</p></body></html>";

/// The comparison frame before any card has come.
const EMPTY_COMPARISON: &str = "<!DOCTYPE html><html lang=\"en\"><meta charset=\"utf-8\"><title>No cards yet</title>\
<body style=\"font-family: system-ui, sans-serif\"><p>No cards to compare yet: measure a screen on the page \
(Measure this screen), or send one with <code>timestep-lab measure --send URL</code>.</p></body></html>";

fn edited_response(result: Result<(), EditError>) -> Response {
    match result {
        Ok(()) => Response::json(200, &serde_json::json!({ "ok": true })),
        Err(err @ EditError::Unknown(_)) => Response::error(404, err),
        Err(err @ EditError::BadName) => Response::error(400, err),
        Err(err @ EditError::Io(_)) => Response::error(500, err),
    }
}

/// `{"name": "…" | null, "left_out": bool}`, each optional: the new name
/// (`Some(None)`: the card's own again) and the left-out mark.
fn parse_edit(body: &[u8]) -> Result<(Option<Option<String>>, Option<bool>), String> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let object = value.as_object().ok_or("not an object")?;
    if let Some(key) = object.keys().find(|k| !matches!(k.as_str(), "name" | "left_out")) {
        return Err(format!("unknown field '{key}'"));
    }
    let name = match object.get("name") {
        None => None,
        Some(serde_json::Value::Null) => Some(None),
        Some(serde_json::Value::String(text)) => Some(Some(text.clone())),
        Some(_) => return Err("'name' is text or null".to_owned()),
    };
    let left_out = match object.get("left_out") {
        None => None,
        Some(value) => Some(value.as_bool().ok_or("'left_out' is true or false")?),
    };
    Ok((name, left_out))
}

fn not_allowed(method: &str, path: &str) -> Response {
    Response::error(
        405,
        format!("{method} {path} is not something this server does (docs/serve.md lists what it does)"),
    )
}

/// The token a request carries: the `Authorization: Bearer` header, else `?token=`.
fn token_of<'a>(request: &Request<'a>) -> Option<std::borrow::Cow<'a, str>> {
    if let Some(token) = request.authorization.and_then(|h| h.strip_prefix("Bearer ")) {
        return Some(token.trim().into());
    }
    form_urlencoded::parse(request.query.as_bytes()).find(|(k, _)| k == "token").map(|(_, v)| v)
}

/// The value of the cookie `name` in the request's `Cookie` headers.
fn cookie_of<'a>(request: &Request<'a>, name: &str) -> Option<&'a str> {
    request.cookie?.split(';').find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// Compares two byte strings in time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

impl HttpService for Gallery {
    fn refuse_early(&self, request: &Request<'_>, content_length: Option<u64>) -> Option<Response> {
        Gallery::refuse_early(self, request, content_length)
    }

    fn handle(&self, request: &Request<'_>) -> Response {
        Gallery::handle(self, request)
    }

    fn too_slow(&self, seconds: u64) -> Response {
        too_slow(seconds)
    }

    fn too_large(&self) -> Response {
        too_large()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access() -> Access {
        let printed: Vec<std::net::IpAddr> =
            vec!["192.168.1.20".parse().expect("an ip"), "fe80::1".parse().expect("an ip")];
        Access::new("0123abcd".to_owned(), 8000, &printed, &["Desk.Local.".to_owned()])
    }

    #[test]
    fn the_host_is_a_loopback_name_a_printed_address_or_a_host_flag_s_with_no_port_or_the_server_s() {
        let access = access();
        for host in [
            "localhost:8000",
            "LOCALHOST",
            "127.0.0.1:8000",
            "[::1]:8000",
            "192.168.1.20:8000",
            "[FE80::1]:8000",
            "desk.local",
        ] {
            assert!(access.serves(Some(host)), "{host}");
        }
        for host in ["evil.example:8000", "127.0.0.1:8001", "192.168.1.21:8000", "desk.local.evil", "[::2]:8000", ""] {
            assert!(!access.serves(Some(host)), "{host}");
        }
        assert!(!access.serves(None), "no Host, no answer");
        assert_eq!(split_host("[::1]:8000"), ("[::1]".to_owned(), Some("8000")));
        assert_eq!(split_host("Desk.Local.:80"), ("desk.local".to_owned(), Some("80")));
    }

    #[test]
    fn a_read_of_the_cards_takes_the_token_or_its_cookie_and_a_write_never_the_cookie() {
        let dir = std::env::temp_dir().join(format!("timestep-lab-api-{}", std::process::id()));
        let gallery = Gallery::new(Store::open(&dir).expect("a store"), Site::default(), access());
        let ask = |method, path, query, cookie| {
            gallery.handle(&Request { method, path, query, cookie, host: Some("127.0.0.1:8000"), ..Request::default() })
        };
        assert_eq!(ask("GET", "/api/cards", "", None).status, 401);
        assert_eq!(ask("GET", "/api/cards", "token=0123abcd", None).status, 200);
        assert_eq!(ask("GET", "/api/cards", "", Some("a=b; timestep-lab-8000=0123abcd")).status, 200);
        assert_eq!(ask("GET", "/api/cards", "", Some("timestep-lab-8001=0123abcd")).status, 401, "another port's");
        assert_eq!(ask("DELETE", "/api/cards/x", "", Some("timestep-lab-8000=0123abcd")).status, 401);
        let knock = ask("GET", "/cards", "", None);
        assert_eq!(knock.status, 401);
        let page = String::from_utf8_lossy(knock.bytes().expect("a page"));
        assert!(page.contains("needs its token (no token)") && page.contains("/cards?token="), "{page}");
        let set = ask("GET", "/cards", "token=0123abcd", None);
        let cookie = set.headers.iter().find(|(n, _)| *n == "set-cookie").map(|(_, v)| v.as_str());
        assert_eq!(cookie, Some("timestep-lab-8000=0123abcd; Path=/; HttpOnly; SameSite=Strict"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_ninth_archive_while_eight_stream_is_asked_to_come_back_and_one_ended_makes_room() {
        let dir = std::env::temp_dir().join(format!("timestep-lab-api-archives-{}", std::process::id()));
        let gallery = Gallery::new(Store::open(&dir).expect("a store"), Site::default(), access());
        let ask = || {
            gallery.handle(&Request {
                method: "GET",
                path: "/cards.tar.gz",
                query: "token=0123abcd",
                host: Some("localhost:8000"),
                ..Request::default()
            })
        };
        let mut streaming: Vec<Response> = (0..MAX_ARCHIVES).map(|_| ask()).collect();
        assert!(streaming.iter().all(|r| r.status == 200 && r.bytes().is_none()), "eight streams");
        let ninth = ask();
        assert_eq!(ninth.status, 503);
        assert!(ninth.headers.contains(&("retry-after", "30".to_owned())));
        let Some(Response { body: crate::http_message::Body::Stream(write), .. }) = streaming.pop() else {
            panic!("a stream")
        };
        let mut archive = Vec::new();
        write(&mut archive).expect("an empty gallery's archive");
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&archive[..]));
        assert_eq!(tar.entries().expect("a tar.gz").count(), 0, "no card, no entry");
        assert_eq!(ask().status, 200, "the one written gave its place back");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
