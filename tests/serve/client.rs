//! A `serve` process on a free port of 127.0.0.1, and raw HTTP/1.1 to it
//! (so a test says exactly what goes on the wire: no token, 20 MB, a byte a second).

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Connections one address may hold (docs/serve.md: a 256-connection table over 8 addresses).
pub const PER_ADDRESS: usize = 32;

/// A report card of tests/data/report_card.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card").join(name)
}

/// The fixture `name` as a tour writes it: with the time it ran (`created`), whole pretty JSON.
pub fn measured(name: &str, created: &str) -> String {
    let text = std::fs::read_to_string(fixture(name)).expect("the fixture");
    let mut card: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    card["created"] = created.into();
    serde_json::to_string_pretty(&card).expect("JSON") + "\n"
}

/// A fresh directory for `test`'s cards.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-serve-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A site of two files: the page's index and a wasm that compresses.
fn site(dir: &Path) -> PathBuf {
    let site = dir.with_extension("site");
    std::fs::create_dir_all(&site).expect("the site's directory");
    std::fs::write(site.join("index.html"), "<!DOCTYPE html><title>page</title>").expect("index.html");
    std::fs::write(site.join("timestep_lab_web_bg.wasm"), [0u8; 50_000]).expect("the wasm");
    site
}

/// `timestep-lab serve --addr 127.0.0.1:0`, killed when dropped.
pub struct Served {
    child: Child,
    /// What it printed at start.
    pub banner: String,
    /// The loopback address it listens on (127.0.0.1 unless started elsewhere).
    pub ip: std::net::Ipv4Addr,
    /// Its port.
    pub port: u16,
    /// Its token.
    pub token: String,
}

impl Served {
    /// Starts a server keeping its cards in `cards`, serving a small site beside it.
    pub fn start(cards: &Path) -> Served {
        Served::start_with_site(cards, &site(cards))
    }

    /// Starts a server keeping its cards in `cards` and serving `site`.
    pub fn start_with_site(cards: &Path, site: &Path) -> Served {
        Served::launch(cards, site, "127.0.0.1:0", &[])
    }

    /// Starts a server listening on `addr` (a loopback one) with `extra` flags, serving a small site.
    pub fn start_with(cards: &Path, addr: &str, extra: &[&str]) -> Served {
        Served::launch(cards, &site(cards), addr, extra)
    }

    fn launch(cards: &Path, site: &Path, addr: &str, extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
            .args(["serve", "--addr", addr, "--cards"])
            .arg(cards)
            .arg("--site")
            .arg(site)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("serve starts");
        let mut stdout = child.stdout.take().expect("its stdout");
        let banner = crate::banner::read(&mut stdout)
            .unwrap_or_else(|banner| panic!("serve ended before it was ready: {banner}"));
        let url = crate::banner::local_url(&banner).unwrap_or_else(|| panic!("no local address: {banner}"));
        let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("an address: {url}"));
        let (host, rest) = rest.split_once(':').unwrap_or_else(|| panic!("a host and a port: {url}"));
        let (port, token) = rest.split_once("/?token=").unwrap_or_else(|| panic!("a port and a token: {url}"));
        Served {
            ip: host.parse().unwrap_or_else(|_| panic!("a loopback IPv4 address: {url}")),
            port: port.parse().expect("a port"),
            token: token.to_owned(),
            banner,
            child,
        }
    }

    /// Its process id (to read its memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A connection to it from 127.0.0.1.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect((self.ip, self.port)).expect("connects to the loopback");
        stream.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
        stream
    }

    /// A connection to it from `from`, another loopback address (Linux routes all of 127.0.0.0/8 here).
    pub fn connect_from(&self, from: [u8; 4]) -> std::io::Result<TcpStream> {
        connect_from(from, (self.ip, self.port).into())
    }

    /// `http://127.0.0.1:PORT{path}?token=…`, as the banner prints it.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}:{}{path}?token={}", self.ip, self.port, self.token)
    }

    /// A request as written, with the token as a bearer when given; the whole answer as text.
    pub fn raw(&self, method: &str, path: &str, token: Option<&str>, body: &[u8]) -> String {
        let bearer = token.map(|t| format!("Authorization: Bearer {t}"));
        self.raw_with(method, path, &bearer.iter().map(String::as_str).collect::<Vec<_>>(), body)
    }

    /// [`Served::raw`] from the loopback address `from`.
    pub fn raw_from(&self, from: [u8; 4], method: &str, path: &str, token: Option<&str>, body: &[u8]) -> String {
        let stream = self.connect_from(from).expect("connects from another loopback address");
        let bearer = token.map(|t| format!("Authorization: Bearer {t}"));
        self.raw_on(stream, method, path, &bearer.iter().map(String::as_str).collect::<Vec<_>>(), body)
    }

    /// A request with `headers`; the whole answer as text (what the server sent before it closed).
    pub fn raw_with(&self, method: &str, path: &str, headers: &[&str], body: &[u8]) -> String {
        self.raw_on(self.connect(), method, path, headers, body)
    }

    fn raw_on(&self, mut stream: TcpStream, method: &str, path: &str, headers: &[&str], body: &[u8]) -> String {
        stream.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
        let host = if headers.iter().any(|h| h.to_ascii_lowercase().starts_with("host:")) {
            String::new()
        } else {
            format!("Host: {}\r\n", self.ip)
        };
        let mut head =
            format!("{method} {path} HTTP/1.1\r\n{host}Connection: close\r\nContent-Length: {}\r\n", body.len());
        for header in headers {
            head += header;
            head += "\r\n";
        }
        head += "\r\n";
        // The server may answer and close before the body is sent (a refused 20 MB): keep what came.
        let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body));
        read_answer(&mut stream)
    }

    /// A POST whose body comes chunked (no length announced).
    pub fn chunked(&self, path: &str, token: &str, body: &[u8]) -> String {
        let mut stream = self.connect();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        let mut sent = stream.write_all(head.as_bytes());
        for chunk in body.chunks(1 << 20) {
            sent = sent
                .and_then(|()| write!(stream, "{:x}\r\n", chunk.len()))
                .and_then(|()| stream.write_all(chunk))
                .and_then(|()| stream.write_all(b"\r\n"));
        }
        let _ = sent.and_then(|()| stream.write_all(b"0\r\n\r\n"));
        read_answer(&mut stream)
    }

    /// GET `path` with the token (as a bearer): status and body.
    pub fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let answer = self.raw_bytes(path);
        let split = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |i| i + 4);
        let status = String::from_utf8_lossy(&answer[..split.min(answer.len())]);
        let code = status.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        let body = if status.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            dechunk(&answer[split..])
        } else {
            answer[split..].to_vec()
        };
        (code, body)
    }

    fn raw_bytes(&self, path: &str) -> Vec<u8> {
        let mut stream = self.connect();
        let _ = write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
            self.ip, self.token
        );
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        answer
    }

    /// GET `path` as JSON.
    pub fn get_json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "GET {path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).expect("JSON")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_answer(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status and the body of an answer (`Connection: close`, so the body is the rest).
pub fn status_and_body(answer: &str) -> (u16, String) {
    let code = answer.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (code, body.to_owned())
}

/// Sends `head` at once, then one byte a second, up to `bytes` of them or
/// until the server answers or closes: what came back, and how long it took.
pub fn slow(port: u16, head: &str, bytes: usize) -> (String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects to 127.0.0.1");
    stream.set_read_timeout(Some(Duration::from_millis(1000))).expect("a timeout");
    let _ = stream.write_all(head.as_bytes());
    let mut answer = Vec::new();
    for _ in 0..bytes {
        if stream.write_all(b"x").is_err() {
            break;
        }
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                answer.extend_from_slice(&buf[..n]);
                break;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a timeout");
    let _ = stream.read_to_end(&mut answer);
    (String::from_utf8_lossy(&answer).into_owned(), started.elapsed())
}

/// A TCP connection from the loopback address `from` to `to`, within 5 s.
pub fn connect_from(from: [u8; 4], to: std::net::SocketAddr) -> std::io::Result<TcpStream> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&std::net::SocketAddr::from((from, 0)).into())?;
    socket.connect_timeout(&to.into(), Duration::from_secs(5))?;
    let stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    Ok(stream)
}

/// A GET of `path` from `stream` with `token` as a bearer; the status, or why none came.
pub fn get_on(stream: &mut TcpStream, path: &str, token: &str) -> Result<u16, String> {
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("cannot send: {e}"))?;
    let answer = read_answer(stream);
    match status_and_body(&answer).0 {
        0 => Err(format!("no answer: '{answer}'")),
        status => Ok(status),
    }
}

/// A figure of the process `pid` from /proc/PID/status (`VmHWM`, `VmRSS`), kB.
pub fn proc_status_kb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"))
}

/// A chunked body's bytes (a streamed answer: the archive).
pub fn dechunk(mut chunked: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = chunked.windows(2).position(|w| w == b"\r\n") else { return body };
        let size =
            std::str::from_utf8(&chunked[..line_end]).ok().and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
        chunked = &chunked[line_end + 2..];
        match size {
            Some(n) if n > 0 && n <= chunked.len() => {
                body.extend_from_slice(&chunked[..n]);
                chunked = &chunked[(n + 2).min(chunked.len())..];
            }
            _ => return body,
        }
    }
}
