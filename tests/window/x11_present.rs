//! X11's Present events, live under Xvfb (its fake 60 Hz vblank,
//! `present_fake.c`).
//!
//! Mesa 22.3's lavapipe draws the app's window with PutImage, not Present,
//! so the app's own frames raise no `PresentCompleteNotify` here. The test
//! is in two parts:
//!
//! - the lab's observer against a test client that presents through
//!   Present itself (`PresentPixmap` on a window of its own, one present per
//!   vblank): three layers agree, what the client's own connection received,
//!   what the observer's connection recorded, and the display times the
//!   lab's matcher makes of them; msc advances one a vblank and ust is on
//!   this machine's `CLOCK_MONOTONIC`;
//! - the app with lavapipe: Present completes none of its presents, so it
//!   falls back to the present's return and says why, once, in the log, the
//!   overlay's notes and the stats.

use crate::harness;

use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::{AppRun as App, Missing};
use libtest_mimic::{Completion, Failed, Trial};
use timestep_lab::platform::display_time::x11_present::{Complete, Matcher, PresentObserver, completion};
use x11rb::connection::Connection as _;
use x11rb::protocol::present::{self, ConnectionExt as _, EventMask};
use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, WindowClass};
use x11rb::rust_connection::RustConnection;

const BIN: &str = env!("CARGO_BIN_EXE_timestep-lab");

/// Presents the test client makes: two seconds of Xvfb's fake vblank.
const PRESENTS: u32 = 120;

/// Vblanks between the counter's present and the first measured one.
const LEAD: u64 = 10;

/// Xvfb's fake refresh (`present_fake.c`: 16 667 µs, 60 Hz).
const FAKE_VBLANK_US: u64 = 16_667;

/// `CLOCK_MONOTONIC` now, µs (the clock Xorg's and Xvfb's ust is on).
fn monotonic_us() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u64::try_from(now.tv_sec).unwrap_or(0) * 1_000_000 + u64::try_from(now.tv_nsec).unwrap_or(0) / 1_000
}

/// A client presenting a pixmap on a window of its own, through Present,
/// with its own completions selected.
struct Presenter {
    conn: RustConnection,
    window: u32,
    pixmap: u32,
}

impl Presenter {
    fn new(display: &str) -> Result<Presenter, String> {
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| e.to_string())?;
        let root = conn.setup().roots[screen].clone();
        let window = conn.generate_id().map_err(|e| e.to_string())?;
        conn.create_window(
            root.root_depth,
            window,
            root.root,
            0,
            0,
            64,
            64,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new(),
        )
        .map_err(|e| e.to_string())?;
        conn.map_window(window).map_err(|e| e.to_string())?;
        let pixmap = conn.generate_id().map_err(|e| e.to_string())?;
        conn.create_pixmap(root.root_depth, pixmap, window, 64, 64).map_err(|e| e.to_string())?;
        conn.present_query_version(1, 2).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
        let eid = conn.generate_id().map_err(|e| e.to_string())?;
        conn.present_select_input(eid, window, EventMask::COMPLETE_NOTIFY)
            .map_err(|e| e.to_string())?
            .check()
            .map_err(|e| format!("selecting its own completions: {e}"))?;
        Ok(Presenter { conn, window, pixmap })
    }

    /// Queues a present with `serial` for vblank `target_msc` (0: the next).
    fn present(&self, serial: u32, target_msc: u64) -> Result<(), String> {
        self.conn
            .present_pixmap(
                self.window,
                self.pixmap,
                serial,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                present::Option::NONE.into(),
                target_msc,
                0,
                0,
                &[],
            )
            .map_err(|e| e.to_string())?;
        self.conn.flush().map_err(|e| e.to_string())
    }

    /// The next `n` completions this connection receives, each with when it
    /// was read (µs, `CLOCK_MONOTONIC`), waiting up to `timeout`.
    fn completions(&self, n: usize, timeout: Duration) -> Result<Vec<(Complete, u64)>, String> {
        let until = Instant::now() + timeout;
        let mut out = Vec::with_capacity(n);
        while out.len() < n && Instant::now() < until {
            match self.conn.poll_for_event().map_err(|e| e.to_string())? {
                Some(event) => out.extend(completion(&event, self.window).map(|c| (c, monotonic_us()))),
                None => std::thread::sleep(Duration::from_micros(200)),
            }
        }
        Ok(out)
    }
}

fn the_observer_records_every_completion_the_presenting_client_receives() -> Result<Completion, Failed> {
    let xvfb = match harness::start_xvfb("640x480x24") {
        Ok(xvfb) => xvfb,
        Err(missing) => return harness::unavailable(&missing),
    };
    let client = Presenter::new(&xvfb.name)?;
    let observer = PresentObserver::watch(Some(&xvfb.name), client.window)?;
    // One present at the next vblank finds the counter; then every present
    // is queued at once, each for its own vblank from ten on (time to queue
    // them on a busy machine: a target already past completes at once, two
    // on one vblank): the server paces them.
    client.present(0, 0)?;
    let first = client.completions(1, Duration::from_secs(2))?;
    let m0 = first.first().ok_or("the first present never completed")?.0.msc;
    for serial in 1..=PRESENTS {
        client.present(serial, m0 + LEAD + u64::from(serial))?;
    }
    let received = client.completions(PRESENTS as usize, Duration::from_secs(10))?;
    // The observer saw the counter's present too: it is the client's, not one of the measured.
    let recorded: Vec<Complete> = observer
        .read_until(PRESENTS as usize + 1, Duration::from_secs(2))?
        .into_iter()
        .filter(|c| c.serial != 0)
        .collect();
    assert_eq!(recorded.len(), PRESENTS as usize, "the observer recorded every completion: {recorded:?}");
    let client_side: Vec<Complete> = received.iter().map(|(c, _)| *c).collect();

    // Layer 1: the client's own connection got every completion, in order, one a vblank.
    let serials: Vec<u32> = client_side.iter().map(|c| c.serial).collect();
    assert_eq!(serials, (1..=PRESENTS).collect::<Vec<_>>(), "every present completed, in order");
    // One a vblank: Xvfb's fake vblank is a timer, and when the server runs
    // late (a busy machine: 44 ms once) the presents queued for the vblanks
    // it missed complete at the first one after, msc counting every vblank
    // that passed. So msc never goes back and rises by the vblanks the ust
    // step spans, within one.
    let mut single = 0;
    for pair in client_side.windows(2) {
        let (msc_step, ust_step) = (pair[1].msc.saturating_sub(pair[0].msc), pair[1].ust_us - pair[0].ust_us);
        assert!(pair[1].msc >= pair[0].msc, "msc never goes back: {pair:?}");
        assert!(
            (msc_step * FAKE_VBLANK_US).abs_diff(ust_step) < FAKE_VBLANK_US,
            "msc counts the vblanks between two completions: {msc_step} for {ust_step} µs, {pair:?}"
        );
        single += usize::from(msc_step == 1);
    }
    for (c, read_at) in &received {
        assert!(
            c.ust_us <= *read_at,
            "ust is on this machine's CLOCK_MONOTONIC, before the client read it: {c:?}, {read_at}"
        );
        assert!(read_at - c.ust_us < 1_000_000, "and less than a second before: {c:?}, read at {read_at}");
    }
    // Layer 2: the observer's connection recorded exactly what the client received.
    assert_eq!(recorded, client_side, "the observer saw what the presenting client saw");
    let largest = recorded.iter().zip(&client_side).map(|(o, c)| o.ust_us.abs_diff(c.ust_us)).max().unwrap_or(u64::MAX);
    assert_eq!(largest, 0, "the two connections' times agree to the µs");
    // Layer 3: the lab's display times from the observer's record, the
    // presents two ahead of their completions as a swap chain keeps them:
    // frame k at ust_k exactly (the lab's zero 0 here).
    let mut matcher = Matcher::new(0);
    let frames = u64::from(PRESENTS);
    matcher.presenting(0);
    matcher.presenting(1);
    let mut shown: Vec<(u64, Option<u64>)> = Vec::new();
    for (c, next) in recorded.iter().zip(2..) {
        if next < frames {
            matcher.presenting(next);
        }
        shown.extend(matcher.complete(*c).map(|f| (f.frame, f.displayed_at)));
    }
    let expected: Vec<(u64, Option<u64>)> =
        client_side.iter().zip(0..).map(|(c, frame)| (frame, Some(c.ust_us * 1_000))).collect();
    assert_eq!(shown, expected, "each frame timed by its own completion's ust");
    let kinds = matcher.kinds();
    assert_eq!(kinds.copy + kinds.flip + kinds.skip, u64::from(PRESENTS), "{kinds:?}");
    let span = client_side[client_side.len() - 1].ust_us - client_side[0].ust_us;
    let steps = client_side.windows(2).map(|p| p[1].ust_us - p[0].ust_us);
    let (shortest, longest) = steps.fold((u64::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
    eprintln!(
        "x11 present: {PRESENTS} presents by the test client, {} completions recorded by the observer, largest \
         difference between the two connections' ust {largest} µs; {} msc over {span} µs ({} µs a vblank, steps \
         {shortest}-{longest} µs, {single} of {} steps one vblank); {kinds:?}",
        recorded.len(),
        client_side[client_side.len() - 1].msc - client_side[0].msc,
        span / u64::from(PRESENTS - 1),
        PRESENTS - 1,
    );
    Ok(Completion::Completed)
}

fn the_app_whose_driver_bypasses_present_falls_back_to_the_present_return_and_says_why_once()
-> Result<Completion, Failed> {
    let xvfb = match harness::start_xvfb("640x480x24") {
        Ok(xvfb) => xvfb,
        Err(missing) => return harness::unavailable(&missing),
    };
    if let Err(missing) = harness::gpu_probe() {
        return harness::unavailable(missing);
    }
    let _one = harness::one_window_at_a_time();
    let dir = std::env::temp_dir().join(format!("timestep-lab-x11-present-{}", std::process::id()));
    let frame_log = dir.join("frames.csv");
    let mut command = Command::new(BIN);
    command
        .args(["--exit-after", "3", "--window-size", "320x180", "--frame-log"])
        .arg(&frame_log)
        .env("DISPLAY", &xvfb.name)
        .env("RUST_LOG", "info")
        .env_remove("WAYLAND_DISPLAY");
    let mut app = App::spawn(command, dir);
    let status = app.wait(Duration::from_secs(60));
    let stderr = app.stderr();
    if !status.success() {
        let missing = Missing::new("timestep-lab cannot render a window here", format!("{status}: {stderr}"));
        return harness::unavailable(&missing);
    }
    let said = "display times fell back to present-return: X11 Present completed none of the window's 60 presents";
    assert_eq!(stderr.matches(said).count(), 1, "said once in the log: {stderr}");
    assert!(stderr.contains("display times: x11-present"), "the observer opened first: {stderr}");
    let stats = app.stats();
    let timing = &stats["display_timing"];
    assert_eq!(timing["source"], "present-return", "{timing}");
    assert!(timing["fallback"].as_str().is_some_and(|why| why.starts_with("X11 Present completed none")), "{timing}");
    assert_eq!(
        (timing["presents_copied"].as_u64(), timing["presents_flipped"].as_u64()),
        (Some(0), Some(0)),
        "{timing}"
    );
    let notes: Vec<&str> =
        stats["notes"].as_array().map(|n| n.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
    assert_eq!(
        notes.iter().filter(|n| n.starts_with("display times fell back")).count(),
        1,
        "the overlay says it once: {notes:?}"
    );
    assert_eq!(stats["display_time_source"], "present-return", "the frames were timed by their present's return");
    // The frame log says it too, once, in the row written after the fallback.
    let log = std::fs::read_to_string(&frame_log).expect("the frame log");
    let noted: Vec<&str> = log.lines().filter(|l| l.contains(said)).collect();
    assert_eq!(noted.len(), 1, "the reason is in one row of the frame log: {noted:?}");
    assert!(noted[0].contains(",present-return,\"display times fell back"), "{}", noted[0]);
    Ok(Completion::Completed)
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::ignorable_test(
            harness::name(module_path!(), "the_observer_records_every_completion_the_presenting_client_receives"),
            the_observer_records_every_completion_the_presenting_client_receives,
        ),
        Trial::ignorable_test(
            harness::name(
                module_path!(),
                "the_app_whose_driver_bypasses_present_falls_back_to_the_present_return_and_says_why_once",
            ),
            the_app_whose_driver_bypasses_present_falls_back_to_the_present_return_and_says_why_once,
        ),
    ]
}
