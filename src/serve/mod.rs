//! `timestep-lab serve`: the page for every screen on the network, and the
//! gallery where their report cards gather and are compared as they arrive.
//!
//! ```text
//!  phone / laptop / 240 Hz monitor                         this machine
//!  ┌────────────────────────────┐   GET /?token=…   ┌──────────────────────────────────────────┐
//!  │ the page (wasm, gzipped)   │ ◄──────────────── │ platform::run_http_server (hyper, tokio)  │
//!  │ tour ends ─► POST card ────┼─────────────────► │   limits: time, size, connections        │
//!  └────────────────────────────┘  /api/cards       │   └─► api::Gallery::handle (no network)  │
//!  measure --send URL ─► POST card ───────────────► │         ├─ site:  the page's files       │
//!  any browser: /cards ◄── list every 2 s, compare  │         └─ store: cards/*.json, whole,   │
//!                                                   │                   never overwritten      │
//!                                                   └──────────────────────────────────────────┘
//! ```
//!
//! - [`store`]: the cards directory (one file per card, written whole, never overwritten).
//! - [`site`]: the page's files in memory, gzipped once, with ETags.
//! - [`api`]: what each request gets, and who may write (the token).
//! - `gallery.html`: the gallery page (polls `GET /api/cards`, shows `/cards/compare`).
//!
//! The network half (accepting connections, reading requests within their
//! limits) is the platform's ([`crate::platform::run_http_server`]).

pub(crate) mod api;
pub(crate) mod site;
pub(crate) mod store;

pub(crate) use api::Gallery;
