//! The network half of `serve`: connections accepted on tokio, HTTP/1.1 by
//! hyper, and each request read within its limits before
//! its [`HttpService`] (`serve`'s gallery) answers it (on a blocking thread: it reads and
//! writes files and draws the comparison's plots). Also what `serve` and
//! `measure --send` need of the machine: its network addresses, random
//! bytes for the token, and a card posted to a server.
//!
//! ```text
//! accept ─► a free connection slot? (else closed at once)
//!        ─► headers within HEADER_TIME (else closed), then per request:
//!             write without the token ─► 401 │ Content-Length over the card limit ─► 413
//!             body within BODY_TIME ─► 408 │ over the limit as it arrives ─► 413
//!             HttpService::handle on a blocking thread (a panic there ─► 500, the server goes on)
//!        ─► the whole connection within CONNECTION_TIME
//! ```

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::platform::http_message::{HttpService, Request, Response};
use crate::platform::read_limited::MAX_JSON_BYTES;

/// How long a client may take to send a request's headers: a phone on a
/// weak Wi-Fi sends them in one packet; a client sending a byte a second
/// is cut off here.
pub(crate) const HEADER_TIME: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body: a 140 KB card
/// takes well under a second on any network that shows a page; the largest
/// card the server takes (16 MB) needs 1 MB/s.
pub(crate) const BODY_TIME: Duration = Duration::from_secs(15);

/// How long one connection may stay open: the 2.3 MB gzipped page on a
/// slow link, and the gallery's polls on one kept-alive connection.
const CONNECTION_TIME: Duration = Duration::from_secs(300);

/// Connections served at once: every screen a room holds, many times over;
/// more are closed at once instead of queueing without bound.
const MAX_CONNECTIONS: usize = 256;

/// Serves `gallery` on `listener` until the process ends.
///
/// # Errors
/// One line when the runtime cannot start or the listener cannot be used.
pub(crate) fn run_http_server(listener: std::net::TcpListener, gallery: Arc<dyn HttpService>) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        listener.set_nonblocking(true).map_err(|e| format!("cannot use the listener: {e}"))?;
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(|e| format!("cannot use the listener: {e}"))?;
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of file descriptors, a connection reset before accept: wait and go on.
                    log::warn!("serve: accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                log::warn!("serve: {MAX_CONNECTIONS} connections open: one more closed");
                continue;
            };
            let gallery = Arc::clone(&gallery);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| respond(Arc::clone(&gallery), request));
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIME)
                    .max_buf_size(64 << 10)
                    .serve_connection(TokioIo::new(stream), service);
                match tokio::time::timeout(CONNECTION_TIME, connection).await {
                    Ok(Ok(())) => {}
                    Ok(Err(err)) => log::debug!("serve: a connection ended: {err}"),
                    Err(_) => log::debug!("serve: a connection was open {} s: closed", CONNECTION_TIME.as_secs()),
                }
                drop(slot);
            });
        }
    })
}

/// One request: the early refusals, the body within its limits, then the gallery's answer.
async fn respond(
    gallery: Arc<dyn HttpService>,
    request: hyper::Request<Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let header =
        |name: hyper::header::HeaderName| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let authorization = header(hyper::header::AUTHORIZATION);
    let if_none_match = header(hyper::header::IF_NONE_MATCH);
    let accepts_gzip =
        header(hyper::header::ACCEPT_ENCODING).is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")));
    let content_length = header(hyper::header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    let method = parts.method.as_str().to_owned();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().unwrap_or_default().to_owned();
    let early = Request {
        method: &method,
        path: &path,
        query: &query,
        authorization: authorization.as_deref(),
        ..Request::default()
    };
    if let Some(refused) = gallery.refuse_early(&early, content_length) {
        return Ok(to_hyper(refused, false));
    }
    let limit = usize::try_from(MAX_JSON_BYTES).unwrap_or(usize::MAX);
    let body = match tokio::time::timeout(BODY_TIME, Limited::new(body, limit).collect()).await {
        Err(_) => return Ok(to_hyper(gallery.too_slow(BODY_TIME.as_secs()), true)),
        Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => return Ok(to_hyper(gallery.too_large(), true)),
        Ok(Err(err)) => {
            return Ok(to_hyper(Response::error(400, format!("the request's body did not arrive whole: {err}")), true));
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let head = method == "HEAD";
    let answer = tokio::task::spawn_blocking(move || {
        let request = Request {
            method: &method,
            path: &path,
            query: &query,
            authorization: authorization.as_deref(),
            accepts_gzip,
            if_none_match: if_none_match.as_deref(),
            body: &body,
        };
        gallery.handle(&request)
    })
    .await;
    let mut answer = answer.unwrap_or_else(|err| {
        log::error!("serve: a request failed inside the server: {err}");
        Response::error(500, "the server failed on this request (its log says why); it goes on serving")
    });
    if head {
        answer.body = Bytes::new();
    }
    Ok(to_hyper(answer, false))
}

/// The gallery's answer as hyper's; `close` when the rest of the request is not read.
fn to_hyper(answer: Response, close: bool) -> hyper::Response<Full<Bytes>> {
    let mut response = hyper::Response::new(Full::new(answer.body));
    *response.status_mut() =
        hyper::StatusCode::from_u16(answer.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    for (name, value) in answer.headers {
        if let Ok(value) = hyper::header::HeaderValue::from_str(&value) {
            headers.append(name, value);
        }
    }
    headers.insert(hyper::header::X_CONTENT_TYPE_OPTIONS, hyper::header::HeaderValue::from_static("nosniff"));
    if close {
        headers.insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
    }
    response
}

/// This machine's addresses on its networks (IPv4 first), loopback left out.
pub(crate) fn network_addresses() -> Vec<std::net::IpAddr> {
    let mut addresses: Vec<std::net::IpAddr> = if_addrs::get_if_addrs()
        .map(|interfaces| interfaces.iter().map(if_addrs::Interface::ip).filter(|ip| !ip.is_loopback()).collect())
        .unwrap_or_default();
    addresses.sort_by_key(|ip| (ip.is_ipv6(), *ip));
    addresses.dedup();
    addresses
}

/// Fills `buf` from the OS's random source (the token, temp file names).
pub(crate) fn random_bytes(buf: &mut [u8]) {
    if let Err(err) = getrandom::fill(buf) {
        // No OS randomness: the clock's nanoseconds are a poor token, but a token.
        log::warn!("no random source ({err}): the token is made from the clock");
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (nanos >> ((i % 16) * 8)) as u8;
        }
    }
}

/// Posts `card` (a report card's JSON) to `url` (`serve`'s printed address,
/// with its `?token=`); returns the id the server kept it under.
///
/// # Errors
/// One line: the server's own reason (`{"error": …}`), or why it was not reached.
pub(crate) fn post_card(url: &str, card: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("'{url}' is not an address: {e}"))?;
    let mut target = parsed.join("/api/cards").map_err(|e| format!("'{url}': {e}"))?;
    let token = parsed.query_pairs().find(|(k, _)| k == "token").map(|(_, v)| v.into_owned());
    if let Some(token) = &token {
        target.query_pairs_mut().append_pair("token", token);
    }
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let answer = match agent.post(target.as_str()).set("Content-Type", "application/json").send_string(card) {
        Ok(response) => response,
        Err(ureq::Error::Status(status, response)) => {
            let why = response
                .into_json::<serde_json::Value>()
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "no reason given".to_owned());
            return Err(format!("the server refused the card ({status}): {why}"));
        }
        Err(err) => return Err(format!("cannot reach {}: {err}", target.origin().ascii_serialization())),
    };
    let value: serde_json::Value = answer.into_json().map_err(|e| format!("the server's answer is not JSON: {e}"))?;
    value["id"].as_str().map(str::to_owned).ok_or_else(|| "the server's answer has no card id".to_owned())
}
