//! What the server answers, request by request, with no network in sight:
//! the platform's HTTP half ([`crate::platform::run_http_server`]) reads a
//! request within its limits and hands it here as a [`Request`].
//!
//! ```text
//! GET    /  /index.html  /<site file>     the page (gzip when asked, ETag, no-cache)
//! GET    /cards                           the gallery (src/serve/gallery.html)
//! GET    /cards/compare                   compare --html of the cards not left out
//! GET    /cards.tar.gz                    every card file in one archive
//! GET    /api/cards                       {"version", "cards": [{id, name, screen, created, left_out}]}
//! GET    /api/cards/ID                    one card as it was posted
//! POST   /api/cards            (token)    a new card: 201 {"id"}, or 4xx {"error": compare's reason}
//! PATCH  /api/cards/ID         (token)    {"name": "…" | null, "left_out": bool}
//! DELETE /api/cards/ID         (token)    the card's file goes
//! ```
//!
//! The token comes as `Authorization: Bearer TOKEN` or `?token=TOKEN`. Every
//! answer that is not a page is JSON, an error one line: `{"error": "…"}`.

use std::sync::Mutex;

use bytes::Bytes;

use super::site::Site;
use super::store::{AddError, EditError, Store};
use crate::platform::read_limited::MAX_JSON_BYTES;
use crate::platform::{HttpService, Request, Response};
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

/// The server and everything it keeps.
#[derive(Debug)]
pub(crate) struct Gallery {
    store: Mutex<Store>,
    site: Site,
    token: String,
    /// The comparison page of the store's version it was made for.
    compared: Mutex<Option<(u64, Bytes)>>,
}

impl Gallery {
    /// A gallery of `store`, serving `site`, writable with `token`.
    pub(crate) fn new(store: Store, site: Site, token: String) -> Gallery {
        Gallery { store: Mutex::new(store), site, token, compared: Mutex::new(None) }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while the lock was held left the store as it was between
        // two whole changes (each change is made last, after its file).
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What is refused before the body is read: a write without the token
    /// (401) and a body announced larger than a card may be (413).
    pub(crate) fn refuse_early(&self, request: &Request<'_>, content_length: Option<u64>) -> Option<Response> {
        if !matches!(request.method, "GET" | "HEAD") && !self.authorized(request) {
            let why = if token_of(request).is_some() { "the token is wrong" } else { "no token" };
            return Some(
                Response::error(
                    401,
                    format!("{why}: writing needs the token in the address serve printed (?token=… or Authorization: Bearer …)"),
                )
                .with("www-authenticate", "Bearer"),
            );
        }
        content_length.filter(|&n| n > MAX_JSON_BYTES).map(|_| too_large())
    }

    /// Whether `request` carries the token.
    fn authorized(&self, request: &Request<'_>) -> bool {
        token_of(request).is_some_and(|given| same(given.as_bytes(), self.token.as_bytes()))
    }

    /// The answer to `request`.
    pub(crate) fn handle(&self, request: &Request<'_>) -> Response {
        if let Some(refused) = self.refuse_early(request, Some(request.body.len() as u64)) {
            return refused;
        }
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
            return Response { status: 304, headers: vec![("etag", file.etag.clone())], body: Bytes::new() };
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

    fn archive(&self) -> Response {
        let files = self.store().files();
        let mut archive = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default()));
        for (name, bytes) in &files {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(0);
            let appended = archive.append_data(&mut header, format!("cards/{name}"), &bytes[..]);
            if let Err(err) = appended {
                return Response::error(500, format!("cannot make the archive: {err}"));
            }
        }
        match archive.into_inner().and_then(flate2::write::GzEncoder::finish) {
            Ok(bytes) => Response::new(200, "application/gzip", bytes)
                .with("content-disposition", "attachment; filename=\"cards.tar.gz\"")
                .with("cache-control", "no-store"),
            Err(err) => Response::error(500, format!("cannot make the archive: {err}")),
        }
    }
}

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
