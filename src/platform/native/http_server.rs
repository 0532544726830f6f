//! The network half of `serve`: connections accepted on tokio, HTTP/1.1 by
//! hyper, and each request read within its limits before
//! its [`HttpService`] (`serve`'s gallery) answers it (on a blocking thread: it reads and
//! writes files and draws the comparison's plots). Also what `serve` and
//! `measure --send` need of the machine: its network addresses, random
//! bytes for the token, and a card posted to a server.
//!
//! ```text
//! accept ─► a slot ([`Slots::admit`]): its address under its share, the table under its size,
//!           else the oldest connection that sent nothing gives way, else the oldest idle one,
//!           else the newcomer is closed at once
//!        ─► a first byte within FIRST_BYTE_TIME (else closed), headers within HEADER_TIME, then per request:
//!             refuse_early (Host, token, announced length) ─► 421 / 401 / 413
//!             body within BODY_TIME ─► 408 │ over the limit as it arrives ─► 413
//!             HttpService::handle on a blocking thread (a panic there ─► 500, the server goes on)
//!             a streamed answer: written on a blocking thread into a channel of CHUNKS chunks of
//!             CHUNK_BYTES, which the client drains (a client that takes none for SEND_TIME: cut off)
//!        ─► the whole connection within CONNECTION_TIME
//! ```

use std::convert::Infallible;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Limited};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::http_message::{Body, HttpService, Request, Response};
use crate::platform::read_limited::MAX_JSON_BYTES;

/// How long a new connection may stay silent before its first byte: a
/// browser sends its request as soon as the connection opens (a phone on
/// weak Wi-Fi within a few hundred ms), so 2 s is ample; a connection opened
/// to hold a slot gives it back within 2 s, or at once to a newcomer when
/// the table is full ([`Slots::admit`]).
pub(crate) const FIRST_BYTE_TIME: Duration = Duration::from_secs(2);

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
pub(crate) const MAX_CONNECTIONS: usize = 256;

/// Connections one address may hold (docs/serve.md derives it): a browser
/// opens at most 6 to one server, so 32 is five browsers and `measure --send`
/// on one machine, and a flood from one address leaves 224 slots, 37
/// browsers' worth, to everyone else.
pub(crate) const PER_ADDRESS: usize = MAX_CONNECTIONS / 8;

/// A connection that sent bytes but has no request under way and nothing
/// moving for this long is idle (a kept-alive one between the gallery's
/// polls): it gives way to a newcomer when the table is full, after those
/// that sent nothing.
const IDLE_AFTER: Duration = Duration::from_secs(1);

/// A streamed answer's chunk, and how many wait for the client at most:
/// 4 × 64 KB a stream, whatever the body's size.
const CHUNK_BYTES: usize = 64 << 10;
const CHUNKS: usize = 4;

/// How long a streamed answer waits for the client to take a chunk before it gives up.
const SEND_TIME: Duration = Duration::from_secs(30);

/// How many connections the kernel holds for `serve` to accept: a flood of connects, each turned
/// away at once, must not fill the queue before another client's (a SYN dropped there waits a
/// second for its retry); 1024, as the kernel's usual somaxconn allows.
const ACCEPT_QUEUE: i32 = 1024;

/// A listener on `addr` with an accept queue of [`ACCEPT_QUEUE`].
pub(crate) fn listen(addr: std::net::SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::STREAM, None)?;
    // As std's bind does on Unix: a restart does not wait for the old connections' TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(ACCEPT_QUEUE)?;
    Ok(socket.into())
}

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
        let clock = Clock(Instant::now());
        let slots = Arc::new(Mutex::new(Slots::new(MAX_CONNECTIONS, PER_ADDRESS)));
        let mut refusals = Refusals::default();
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors, a connection reset before accept: wait and go on.
                    log::warn!("serve: accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let ip = peer.ip().to_canonical();
            let activity = Arc::new(Activity::new(clock.now()));
            let mut table = slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let admitted = table.admit(ip, clock.now());
            let Admit::Yes { id, evict } = admitted else {
                drop(table);
                refusals.note(false, ip);
                continue;
            };
            let gallery = Arc::clone(&gallery);
            let guard = SlotGuard { slots: Arc::clone(&slots), id };
            let task = tokio::spawn(serve_connection(stream, gallery, Arc::clone(&activity), clock, guard));
            let evicted = evict.and_then(|victim| table.remove(victim));
            table.insert(Slot { id, ip, activity, abort: task.abort_handle() });
            drop(table);
            if let Some(victim) = evicted {
                victim.abort.abort();
                refusals.note(true, victim.ip);
            }
        }
    })
}

/// One connection: a first byte within [`FIRST_BYTE_TIME`], then hyper within the other limits.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    gallery: Arc<dyn HttpService>,
    activity: Arc<Activity>,
    clock: Clock,
    guard: SlotGuard,
) {
    let _guard = guard;
    // A peek, not `readable()`: readiness may come without a byte (a new socket's first event).
    match tokio::time::timeout(FIRST_BYTE_TIME, stream.peek(&mut [0u8; 1])).await {
        Ok(Ok(0)) => return,
        Ok(Ok(_)) => {}
        Ok(Err(err)) => return log::debug!("serve: a connection failed before its first byte: {err}"),
        Err(_) => return log::debug!("serve: no byte in {} s: closed", FIRST_BYTE_TIME.as_secs()),
    }
    let io = Tracked { inner: stream, activity: Arc::clone(&activity), clock };
    let service = hyper::service::service_fn(move |request| {
        respond(Arc::clone(&gallery), InFlight::new(Arc::clone(&activity), clock), request)
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIME)
        .max_buf_size(64 << 10)
        .serve_connection(TokioIo::new(io), service);
    match tokio::time::timeout(CONNECTION_TIME, connection).await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => log::debug!("serve: a connection ended: {err}"),
        Err(_) => log::debug!("serve: a connection was open {} s: closed", CONNECTION_TIME.as_secs()),
    }
}

/// One request: the early refusals, the body within its limits, then the gallery's answer.
async fn respond(
    gallery: Arc<dyn HttpService>,
    in_flight: InFlight,
    request: hyper::Request<Incoming>,
) -> Result<hyper::Response<Outgoing>, Infallible> {
    let (parts, body) = request.into_parts();
    let header = |name: hyper::header::HeaderName| {
        let values: Vec<&str> = parts.headers.get_all(name).iter().filter_map(|v| v.to_str().ok()).collect();
        (!values.is_empty()).then(|| values.join("; "))
    };
    let authorization = header(hyper::header::AUTHORIZATION);
    let cookie = header(hyper::header::COOKIE);
    let if_none_match = header(hyper::header::IF_NONE_MATCH);
    let host = parts.uri.authority().map(|a| a.as_str().to_owned()).or_else(|| header(hyper::header::HOST));
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
        host: host.as_deref(),
        authorization: authorization.as_deref(),
        cookie: cookie.as_deref(),
        ..Request::default()
    };
    if let Some(refused) = gallery.refuse_early(&early, content_length) {
        return Ok(to_hyper(refused, true, false, in_flight));
    }
    let limit = usize::try_from(MAX_JSON_BYTES).unwrap_or(usize::MAX);
    let body = match tokio::time::timeout(BODY_TIME, Limited::new(body, limit).collect()).await {
        Err(_) => return Ok(to_hyper(gallery.too_slow(BODY_TIME.as_secs()), true, false, in_flight)),
        Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => {
            return Ok(to_hyper(gallery.too_large(), true, false, in_flight));
        }
        Ok(Err(err)) => {
            let answer = Response::error(400, format!("the request's body did not arrive whole: {err}"));
            return Ok(to_hyper(answer, true, false, in_flight));
        }
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let head = method == "HEAD";
    let answer = tokio::task::spawn_blocking(move || {
        let request = Request {
            method: &method,
            path: &path,
            query: &query,
            host: host.as_deref(),
            authorization: authorization.as_deref(),
            cookie: cookie.as_deref(),
            accepts_gzip,
            if_none_match: if_none_match.as_deref(),
            body: &body,
        };
        gallery.handle(&request)
    })
    .await;
    let answer = answer.unwrap_or_else(|err| {
        log::error!("serve: a request failed inside the server: {err}");
        Response::error(500, "the server failed on this request (its log says why); it goes on serving")
    });
    Ok(to_hyper(answer, false, head, in_flight))
}

/// The gallery's answer as hyper's; `close` when the rest of the request is
/// not read, `head` for a HEAD's answer (headers only; a stream is not started).
fn to_hyper(answer: Response, close: bool, head: bool, in_flight: InFlight) -> hyper::Response<Outgoing> {
    let body = match answer.body {
        _ if head => Source::Whole(None),
        Body::Full(bytes) => Source::Whole(Some(bytes)),
        Body::Stream(write) => Source::Chunks(stream(write)),
    };
    let mut response = hyper::Response::new(Outgoing { source: body, _in_flight: in_flight });
    *response.status_mut() =
        hyper::StatusCode::from_u16(answer.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    for (name, value) in answer.headers {
        if let Ok(value) = hyper::header::HeaderValue::from_str(&value) {
            headers.append(name, value);
        }
    }
    headers.insert(hyper::header::X_CONTENT_TYPE_OPTIONS, hyper::header::HeaderValue::from_static("nosniff"));
    // Addresses carry the token (?token=): never send them on as a Referer.
    headers.insert(hyper::header::REFERRER_POLICY, hyper::header::HeaderValue::from_static("no-referrer"));
    if close {
        headers.insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
    }
    response
}

/// Runs `write` on a blocking thread into a channel of [`CHUNKS`] chunks, and returns its far end.
fn stream(write: crate::http_message::BodyWriter) -> tokio::sync::mpsc::Receiver<std::io::Result<Bytes>> {
    let (sender, receiver) = tokio::sync::mpsc::channel(CHUNKS);
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let mut writer = ChunkWriter { sender, handle, buffer: Vec::with_capacity(CHUNK_BYTES) };
        let written = write(&mut writer).and_then(|()| writer.send());
        if let Err(err) = written {
            log::debug!("serve: a streamed answer ended early: {err}");
            // The client sees the body cut off, not ended (no last chunk): its download fails.
            let _ = writer.sender.try_send(Err(err));
        }
    });
    receiver
}

/// Bytes into [`CHUNK_BYTES`] chunks on a channel; blocks while the client has not taken the earlier ones.
struct ChunkWriter {
    sender: tokio::sync::mpsc::Sender<std::io::Result<Bytes>>,
    handle: tokio::runtime::Handle,
    buffer: Vec<u8>,
}

impl ChunkWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES)));
        let sent = self.handle.block_on(tokio::time::timeout(SEND_TIME, self.sender.send(Ok(chunk))));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client is gone")),
            Err(_) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("the client took nothing for {} s", SEND_TIME.as_secs()),
            )),
        }
    }
}

impl std::io::Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = CHUNK_BYTES - self.buffer.len();
        let taken = bytes.len().min(room);
        self.buffer.extend_from_slice(&bytes[..taken]);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An answer's body as hyper sends it; holds its request [`InFlight`] until sent whole or dropped.
struct Outgoing {
    source: Source,
    _in_flight: InFlight,
}

enum Source {
    Whole(Option<Bytes>),
    Chunks(tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>),
}

impl hyper::body::Body for Outgoing {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match &mut self.source {
            Source::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Source::Chunks(receiver) => receiver.poll_recv(cx).map(|next| next.map(|chunk| chunk.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.source, Source::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.source {
            Source::Whole(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Source::Chunks(_) => SizeHint::default(),
        }
    }
}

/// Milliseconds since the server started: the connections' times.
#[derive(Clone, Copy, Debug)]
struct Clock(Instant);

impl Clock {
    fn now(self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// What a connection has done, as its task sees it and [`Slots::admit`] reads it.
#[derive(Debug)]
struct Activity {
    /// When it was accepted, ms.
    opened: u64,
    /// Whether it has sent a byte.
    spoke: AtomicBool,
    /// Requests read and not yet answered whole.
    in_flight: AtomicUsize,
    /// When a byte last came or went, or a request began or ended, ms.
    last: AtomicU64,
}

impl Activity {
    fn new(now: u64) -> Activity {
        Activity {
            opened: now,
            spoke: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            last: AtomicU64::new(now),
        }
    }

    fn touch(&self, now: u64) {
        self.last.store(now, Ordering::Relaxed);
    }

    /// How readily it gives way, `None` when not at all: (0, opened) for one
    /// that sent nothing, (1, last activity) for an idle one; lowest first.
    fn yield_order(&self, now: u64) -> Option<(u8, u64)> {
        if !self.spoke.load(Ordering::Relaxed) {
            return Some((0, self.opened));
        }
        let last = self.last.load(Ordering::Relaxed);
        let idle = self.in_flight.load(Ordering::Relaxed) == 0
            && now.saturating_sub(last) >= u64::try_from(IDLE_AFTER.as_millis()).unwrap_or(u64::MAX);
        idle.then_some((1, last))
    }
}

/// A request under way on a connection, from its headers until its answer is sent whole.
struct InFlight {
    activity: Arc<Activity>,
    clock: Clock,
}

impl InFlight {
    fn new(activity: Arc<Activity>, clock: Clock) -> InFlight {
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        activity.touch(clock.now());
        InFlight { activity, clock }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.activity.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.activity.touch(self.clock.now());
    }
}

/// A stream that notes each byte read or written in its [`Activity`].
struct Tracked {
    inner: tokio::net::TcpStream,
    activity: Arc<Activity>,
    clock: Clock,
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.spoke.store(true, Ordering::Relaxed);
            self.activity.touch(self.clock.now());
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, bytes);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch(self.clock.now());
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// One open connection in the table.
#[derive(Debug)]
struct Slot {
    id: u64,
    ip: IpAddr,
    activity: Arc<Activity>,
    abort: tokio::task::AbortHandle,
}

/// What [`Slots::admit`] decides for a newcomer.
#[derive(Debug, PartialEq, Eq)]
enum Admit {
    /// Served as connection `id`, once `evict` (a connection that gives way) is closed.
    Yes { id: u64, evict: Option<u64> },
    /// Closed at once: its address holds its share, or the table is full, of connections that are busy.
    No,
}

/// The open connections, and who gives way to a newcomer.
#[derive(Debug)]
struct Slots {
    max: usize,
    per_address: usize,
    open: Vec<Slot>,
    next: u64,
}

impl Slots {
    fn new(max: usize, per_address: usize) -> Slots {
        Slots { max, per_address, open: Vec::new(), next: 0 }
    }

    /// A newcomer from `ip` at `now` (ms): served at once when its address is
    /// under its share and the table under its size; else the connection that
    /// gives way first (among its address's when the address is at its share,
    /// else among all) is closed for it: one that sent nothing, oldest first,
    /// then an idle one, longest idle first. When none gives way, no.
    fn admit(&mut self, ip: IpAddr, now: u64) -> Admit {
        let mine = self.open.iter().filter(|s| s.ip == ip).count();
        let among = |slot: &&Slot| mine < self.per_address || slot.ip == ip;
        let evict = if mine >= self.per_address || self.open.len() >= self.max {
            let victim = self
                .open
                .iter()
                .filter(among)
                .filter_map(|s| s.activity.yield_order(now).map(|order| (order, s.id)))
                .min()
                .map(|(_, id)| id);
            if victim.is_none() {
                return Admit::No;
            }
            victim
        } else {
            None
        };
        self.next += 1;
        Admit::Yes { id: self.next, evict }
    }

    fn insert(&mut self, slot: Slot) {
        self.open.push(slot);
    }

    fn remove(&mut self, id: u64) -> Option<Slot> {
        let index = self.open.iter().position(|s| s.id == id)?;
        Some(self.open.swap_remove(index))
    }
}

/// Gives a connection's slot back when its task ends, however it ends.
struct SlotGuard {
    slots: Arc<Mutex<Slots>>,
    id: u64,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut table = self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        table.remove(self.id);
    }
}

/// Connections closed for others, logged at most once a second (a flood would fill the log).
#[derive(Debug, Default)]
struct Refusals {
    evicted: u64,
    refused: u64,
    last_logged: Option<Instant>,
}

impl Refusals {
    fn note(&mut self, evicted: bool, ip: IpAddr) {
        if evicted {
            self.evicted += 1
        } else {
            self.refused += 1
        }
        if self.last_logged.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return;
        }
        log::warn!(
            "serve: connections at their limit ({MAX_CONNECTIONS} in all, {PER_ADDRESS} an address; last from {ip}): \
             {} newcomers closed, {} silent or idle connections closed for newcomers since the last such line",
            self.refused,
            self.evicted
        );
        (self.refused, self.evicted, self.last_logged) = (0, 0, Some(Instant::now()));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A table slot for `ip`, opened at `opened` ms; its task is a no-op on a test runtime.
    fn slot(runtime: &tokio::runtime::Runtime, slots: &mut Slots, ip: [u8; 4], opened: u64) -> Arc<Activity> {
        let Admit::Yes { id, evict: None } = slots.admit(IpAddr::from(ip), opened) else { panic!("room for {ip:?}") };
        let activity = Arc::new(Activity::new(opened));
        let abort = runtime.spawn(async {}).abort_handle();
        slots.insert(Slot { id, ip: IpAddr::from(ip), activity: Arc::clone(&activity), abort });
        activity
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().build().expect("a runtime")
    }

    /// Hand-worked: a table of 4, 2 an address. A (10.0.0.1) opens two silent
    /// connections at 0 and 100 ms; its third at 200 ms closes its oldest silent
    /// one (id 1), not B's. B (10.0.0.2) opens two, one busy (a request under way)
    /// and one that spoke at 300 ms and went quiet. At 1 400 ms, C finds the
    /// table full: A's silent one (id 2, opened at 100) goes first; were none
    /// silent, B's quiet one (idle 1.1 s ≥ 1 s); never B's busy one.
    #[test]
    fn a_newcomer_takes_the_slot_of_a_silent_connection_first_then_an_idle_one_never_a_busy_one() {
        let rt = runtime();
        let mut slots = Slots::new(4, 2);
        let a1 = slot(&rt, &mut slots, [10, 0, 0, 1], 0);
        let _a2 = slot(&rt, &mut slots, [10, 0, 0, 1], 100);
        assert_eq!(
            slots.admit(IpAddr::from([10, 0, 0, 1]), 200),
            Admit::Yes { id: 3, evict: Some(1) },
            "A at its share: its own oldest silent connection gives way"
        );
        drop(a1);
        slots.remove(1);
        let a3 = Arc::new(Activity::new(200));
        slots.insert(Slot {
            id: 3,
            ip: IpAddr::from([10, 0, 0, 1]),
            activity: Arc::clone(&a3),
            abort: rt.spawn(async {}).abort_handle(),
        });
        let b_busy = slot(&rt, &mut slots, [10, 0, 0, 2], 250);
        b_busy.spoke.store(true, Ordering::Relaxed);
        b_busy.in_flight.store(1, Ordering::Relaxed);
        let b_quiet = slot(&rt, &mut slots, [10, 0, 0, 2], 260);
        b_quiet.spoke.store(true, Ordering::Relaxed);
        b_quiet.touch(300);
        let c = IpAddr::from([10, 0, 0, 3]);
        assert_eq!(slots.admit(c, 1400), Admit::Yes { id: 6, evict: Some(2) }, "the oldest silent one, A's");
        for silent in [&slots.open[0].activity, &a3] {
            silent.spoke.store(true, Ordering::Relaxed);
            silent.in_flight.store(1, Ordering::Relaxed);
        }
        assert_eq!(slots.admit(c, 1400), Admit::Yes { id: 7, evict: Some(5) }, "then the idle one");
        assert_eq!(slots.admit(c, 1299), Admit::No, "quiet for 0.999 s is not idle: every connection is busy");
        assert_eq!(
            slots.admit(IpAddr::from([10, 0, 0, 2]), 1299),
            Admit::No,
            "B at its share, both busy: the newcomer is closed, not B's request"
        );
    }

    #[test]
    fn an_address_under_its_share_in_a_table_with_room_takes_a_slot_without_closing_any() {
        let rt = runtime();
        let mut slots = Slots::new(256, 32);
        for i in 0..31 {
            slot(&rt, &mut slots, [127, 0, 0, 2], i);
        }
        assert_eq!(slots.admit(IpAddr::from([127, 0, 0, 2]), 40), Admit::Yes { id: 32, evict: None });
        assert_eq!(PER_ADDRESS * 8, MAX_CONNECTIONS, "docs/serve.md's derivation: 8 addresses fill the table");
    }
}
