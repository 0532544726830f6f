//! The page itself: every strategy runs with WebGPU and with WebGL2, the keys
//! act as in the window, `timestepLab.stats()` carries the run's figures, the
//! picture is not blank, and a bad query parameter is a message on the page.

use std::time::Duration;

use libtest_mimic::{Completion, Failed, Trial};
use timestep_lab::report::registry::{JUDDER_MS, LATENCY_MS};
use timestep_lab::report_card::{ReportCard, RunRecord, judge};
use timestep_lab::strategy::StrategyId;

use crate::browser::{Backend, Browser, Server};
use crate::harness;

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<Trial> {
    let name = |test| harness::name(module_path!(), test);
    vec![
        Trial::ignorable_test(name("every_strategy_runs_in_the_page_with_webgpu"), || {
            in_browser(Backend::WebGpu, every_strategy_runs)
        }),
        Trial::ignorable_test(name("every_strategy_runs_in_the_page_with_webgl2"), || {
            in_browser(Backend::WebGl2, every_strategy_runs)
        }),
        Trial::ignorable_test(name("keys_switch_strategies_lanes_and_load_as_in_the_window"), || {
            in_browser(Backend::WebGpu, keys_act_as_in_the_window)
        }),
        Trial::ignorable_test(name("fuzzy_at_the_page_s_60_hz_updates_twice_only_to_make_up_a_missed_refresh"), || {
            in_browser(Backend::WebGpu, fuzzy_has_no_double_update_of_its_own)
        }),
        Trial::ignorable_test(
            name("measure_in_the_page_downloads_a_card_that_compare_puts_beside_a_native_one"),
            || in_browser(Backend::WebGl2, measure_downloads_a_card),
        ),
        Trial::ignorable_test(name("the_compare_page_puts_the_picked_cards_side_by_side"), || {
            in_browser(Backend::WebGl2, compare_in_the_page)
        }),
        Trial::ignorable_test(
            name("an_emulated_refresh_shows_frames_at_its_rate_at_the_default_size_on_webgl2"),
            || in_browser(Backend::WebGl2, emulated_refresh),
        ),
        Trial::ignorable_test(name("a_bad_query_parameter_is_a_message_on_the_page"), || {
            in_browser(Backend::WebGl2, a_bad_parameter_is_shown)
        }),
    ]
}

/// How long a page gets to start and run a few frames (a software adapter on 2 shared cores).
const START: Duration = Duration::from_secs(30);

/// Runs `test` against the built site in a fresh browser, or skips.
fn in_browser(
    backend: Backend,
    test: fn(&Browser, &Server, Backend) -> Result<(), String>,
) -> Result<Completion, Failed> {
    crate::browser::in_browser(backend, [900, 700], |browser, server| test(browser, server, backend))
}

fn number(stats: &serde_json::Value, field: &str) -> f64 {
    stats[field].as_f64().unwrap_or(f64::NAN)
}

fn every_strategy_runs(browser: &Browser, server: &Server, backend: Backend) -> Result<(), String> {
    for id in StrategyId::ALL {
        browser.open(&format!("{}/?strategy={id}&window-size=480x270", server.base))?;
        let stats = browser.wait_for(START, |s| number(s, "total_updates") >= 30.0 && number(s, "vsyncs") >= 10.0)?;
        let name = stats["strategy"].as_str().unwrap_or_default();
        assert_eq!(name, id.name(), "the page runs the strategy of its query: {stats}");
        let adapter = stats["adapter"].as_str().unwrap_or_default();
        assert!(adapter.contains(backend.adapter_backend()), "{id}: rendered on {adapter}, not {backend:?}");
        assert!(number(&stats, "fps") > 1.0, "{id}: frames are presented: {stats}");
        let message = browser.message()?;
        assert!(message.is_empty(), "{id}: the page shows '{message}'");
    }
    let png = browser.screenshot()?;
    let picture = image::load_from_memory(&png).map_err(|e| e.to_string())?.to_rgb8();
    let colours: std::collections::HashSet<[u8; 3]> = picture.pixels().map(|p| p.0).collect();
    assert!(colours.len() > 100, "the page shows the demo, not a blank canvas: {} colours", colours.len());
    Ok(())
}

fn keys_act_as_in_the_window(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    browser.open(&format!("{}/?window-size=480x270", server.base))?;
    browser.wait_for(START, |s| number(s, "total_updates") >= 10.0)?;
    browser.eval("document.querySelector('canvas').focus(); return null")?;
    for key in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"] {
        browser.press(key)?;
        std::thread::sleep(Duration::from_millis(150));
    }
    let stats = browser.wait_for(START, |s| s["strategies_used"].as_array().is_some_and(|a| a.len() == 10))?;
    assert_eq!(stats["strategy"], "auto", "0 selects auto, the last key pressed: {stats}");
    browser.press("l")?;
    browser.press("c")?;
    let lanes = browser.wait_for(START, |s| s["lanes"].as_array().is_some_and(|l| !l.is_empty()))?;
    assert_eq!(lanes["lanes"].as_array().map(Vec::len), Some(10), "C opens a lane per strategy");
    browser.press("c")?;
    // V: a browser cannot turn vsync off; it moves the frames from requestAnimationFrame to timers.
    browser.press("v")?;
    let timers = browser.wait_for(START, |s| s["present_mode_actual"] == "timers (no requestAnimationFrame)")?;
    let (frames, since) = (number(&timers, "presented"), std::time::Instant::now());
    let later = browser.wait_for(START, |s| number(s, "presented") >= frames + 30.0)?;
    // The timer loop is capped at four frames a refresh: an upper bound that holds at any load
    // (the page's frames over the test's own, longer, wall time).
    std::thread::sleep(Duration::from_secs(1));
    let capped = browser.stats()?;
    let rate = (number(&capped, "presented") - frames) / since.elapsed().as_secs_f64();
    // Until the page has measured its screen, the cap assumes 60 Hz (the shell's ASSUMED_REFRESH);
    // a busy machine can leave the screen unmeasured all along.
    let (screen, which) = match later["screen_refresh_hz"].as_f64().filter(|hz| hz.is_finite() && *hz > 0.0) {
        Some(hz) => (hz, format!("a {hz:.1} Hz screen")),
        None => (60.0, "a screen whose refresh is not yet measured (the cap assumes 60 Hz)".to_owned()),
    };
    assert!(rate <= 4.0 * screen.max(60.0) * 1.05, "timers ran {rate:.0} frames/s on {which}");
    browser.press("v")?;
    browser.wait_for(START, |s| s["present_mode_actual"] == "Fifo")?;
    // T: the tour, as the page's button starts it (offering a name for the card first),
    // keeping what a tour shares with the run.
    browser.press("t")?;
    browser.wait_for_script(START, "return !document.getElementById('name-form').hidden")?;
    browser.eval(
        "document.getElementById('screen-name').value = 'bench phone'; \
         document.querySelector('#name-form button[type=submit]').click(); return null",
    )?;
    let deadline = std::time::Instant::now() + START;
    loop {
        let search = browser.eval("return window.location.search")?;
        if search == "?measure&window-size=480x270&name=bench+phone" {
            let kept = browser.eval("return localStorage.getItem('timestep-lab.screen-name')")?;
            assert_eq!(kept, "bench phone", "the name is remembered on this device");
            break;
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("T should open the tour, the page is at '{search}'"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// At the default size (1280×720) on WebGL2 the overlay's draws once
/// panicked for want of a base vertex: the page runs there (a software
/// rasteriser draws that size slowly: frames, not their pace, are checked).
///
/// `?emulate-refresh=30` on the page's 60 Hz: frames are shown on every
/// other refresh, so presents come every 33.3 ms (a frame that misses its
/// refresh waits for the next emulated one, 66.7 ms: the mean may run a
/// little long, never short). An emulated rate above the page's says that
/// it cannot be had.
fn emulated_refresh(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    browser.open(&format!("{}/?strategy=interpolated", server.base))?;
    let stats = browser.wait_for(START, |s| number(s, "presented") >= 10.0)?;
    assert_eq!(browser.message()?, "", "the default size runs: {stats}");
    browser.open(&format!("{}/?strategy=lockstep&emulate-refresh=30&window-size=480x270", server.base))?;
    let stats = browser.wait_for(Duration::from_secs(60), |s| number(s, "presented") >= 60.0)?;
    let mean = number(&stats, "present_interval_mean_ms");
    assert!(mean >= 33.0, "never faster than the emulated 30 Hz, at any load: mean {mean} ms: {stats}");
    assert_eq!(stats["emulated_refresh_hz"].as_f64(), Some(30.0), "the run says it emulates: {stats}");
    // A page starved below 30 frames a second measures its screen that slow,
    // and 30 Hz is then rightly faster than the screen it saw.
    let message = browser.message()?;
    let screen = number(&stats, "screen_refresh_hz");
    let stalls = stalled_frames(&stats, 1000.0 / 30.0);
    let starved = !message.is_empty() && (stalls > 2 || screen < 30.0);
    let evidence =
        format!("the page stalled in {stalls} frames and measured its screen at {screen:.1} Hz: '{message}'");
    crate::browser::skip_if_starved(starved, &evidence, "no message at 30 Hz")?;
    assert_eq!(message, "", "no message at 30 Hz: {stats}");
    browser.open(&format!("{}/?strategy=lockstep&emulate-refresh=144&window-size=480x270", server.base))?;
    // The page judges the emulated rate once it has measured its screen.
    browser.wait_for(START, |s| number(s, "presented") >= 10.0 && number(s, "screen_refresh_hz") > 0.0)?;
    let message = browser.message()?;
    assert!(message.contains("faster than this screen"), "144 Hz on a 60 Hz page: '{message}'");
    // Every other refresh exactly needs a page that kept up (its own intervals: 1.5 emulated periods is a stall).
    crate::browser::skip_if_starved(stalls > 2, &format!("the page stalled in {stalls} frames"), "30 Hz exactly")?;
    assert!(mean < 40.0, "presents every other 60 Hz refresh: mean {mean} ms: {stats}");
    Ok(())
}

/// Headless Chromium's requestAnimationFrame runs at a steady 60 Hz, a tick
/// rate fuzzy snaps to: in steady state every refresh that shows a new frame
/// gets one update. The page does miss refreshes now and then (a `0` in the
/// pattern: two cores, a software rasteriser, Chromium's own processes), and
/// a frame after a miss catches up with `2`. Which refresh the catching-up
/// frame is counted at is not exact (the page's display times lie on the
/// edges of its refresh grid), so the check counts: past the first 20
/// refreshes, no more `2`s than `0`s, nothing above 2, and somewhere half a
/// second at one update a refresh. Double updates beyond the misses would be
/// the timer noise that catch-up turns into doubles and fuzzy exists to remove.
///
/// That needs a page that keeps up with its screen: the pattern is judged
/// only when the page's own present intervals show no more than two stalls
/// (an interval of 1.5 refreshes or more, against the screen's refresh the
/// page measured), else the test is reported as skipped with the load: a
/// page that stalled catches up with 3s and 4s, rightly.
fn fuzzy_has_no_double_update_of_its_own(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    browser.open(&format!("{}/?strategy=fuzzy&window-size=480x270", server.base))?;
    let stats = browser.wait_for(Duration::from_secs(60), |s| number(s, "vsyncs") >= 300.0)?;
    let stalls = stalled_frames(&stats, 1000.0 / number(&stats, "screen_refresh_hz"));
    let evidence = format!("the page stalled in {stalls} of its frames");
    crate::browser::skip_if_starved(stalls > 2, &evidence, "fuzzy's pattern")?;
    let pattern = stats["pattern"].as_str().unwrap_or_default();
    let steady: Vec<char> = pattern.chars().skip(20).collect();
    let count = |digit: char| steady.iter().filter(|&&c| c == digit).count();
    assert!(count('2') <= count('0'), "a double update for every missed refresh at most: {pattern}");
    assert!(steady.iter().all(|&c| c <= '2'), "never more than two updates a refresh: {pattern}");
    let longest_ones = steady.split(|&c| c != '1').map(<[char]>::len).max().unwrap_or(0);
    assert!(longest_ones >= 30, "half a second of one update per refresh: {pattern}");
    Ok(())
}

/// Frames whose present interval was 1.5 `period`s (ms) or more: the
/// page's own histogram against its own measure of the screen.
fn stalled_frames(stats: &serde_json::Value, period: f64) -> u64 {
    let histogram = &stats["present_interval_histogram"];
    let bin = histogram["bin_ms"].as_f64().unwrap_or(f64::NAN);
    let counts = histogram["counts"].as_array().cloned().unwrap_or_default();
    let late = counts.iter().enumerate().filter(|(i, _)| *i as f64 * bin >= 1.5 * period);
    late.map(|(_, c)| c.as_u64().unwrap_or(0)).sum::<u64>() + histogram["overflow"].as_u64().unwrap_or(0)
}

/// `?measure` runs the report-card tour in the page; its files come as
/// downloads, and the card names the browser and reads like a native one.
/// Its predictions model the page (a frame shown at the refresh after it is
/// ready: one deep), and catch-up's and interpolated's measured figures
/// agree with them (the ratios are printed for the record). A tour whose
/// runs met a stall its probe did not (the machine is shared) gets one more
/// try; two tours that disagree fail.
fn measure_downloads_a_card(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    let (json, card) = tour_in_the_page(browser, server)?;
    // What holds at any load: the files, the card's names, compare.
    let browser_name = card.machine.browser.as_deref().unwrap_or_default();
    assert!(browser_name.contains("Chrome"), "the card names the browser: {:?}", card.machine);
    let monitor = &card.monitors[0];
    let refresh = monitor.present_cadence_hz.unwrap_or(f64::NAN);
    let named = timestep_lab::report_card::card_file_name(&card, "json");
    let downloaded = json.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    assert_eq!(downloaded, named, "the download is named for its screen and time");
    assert!(named.starts_with("report-chrome-headless-") && named.contains("-on-linux-"), "{named}");
    let page = std::fs::read_to_string(json.with_extension("html")).map_err(|e| e.to_string())?;
    assert!(page.contains("<svg") && page.contains("fuzzy"), "the card's page");
    let modelled = page.contains("Predictions model the setup measured here");
    assert!(modelled || page.contains("could not be modelled"), "the page says what its predictions model");
    assert!(page.contains(" on Linux"), "the header names the browser's system");
    let native = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card/60hz.json");
    let sources = [json, native]
        .iter()
        .map(|p| timestep_lab::report_card::comparison::load(p).map(|s| (p.display().to_string(), s)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let text = timestep_lab::report_card::comparison::compare(&sources, 120.0).to_text();
    // The page's column is named by its browser and device; the native fixture's by its name.
    assert!(text.contains(" on Linux · monitor 1 (") && text.contains("virtual monitor · monitor 1 (60 Hz)"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("fuzzy") && l.matches('|').count() == 2), "two columns: {text}");
    // The screen's refresh comes from requestAnimationFrame's stamps: a page starved by a busy
    // machine (two busy loops on 2 cores gave 8.6 Hz) may not measure it, and its card then
    // carries how often its frames came. That is judged on a quiet machine only.
    let unmeasured = (refresh - 60.0).abs() >= 1.0 && crate::browser::machine_busy();
    let evidence = format!("the card's present cadence is {refresh:.2} Hz, not the screen's");
    crate::browser::skip_if_starved(unmeasured, &evidence, "the screen's 60 Hz from requestAnimationFrame")?;
    assert!((refresh - 60.0).abs() < 1.0, "requestAnimationFrame's 60 Hz, measured: {refresh}");
    assert!(page.contains("screen 60 Hz"), "the header names the screen's refresh");
    // The page's model and its agreement are a quiet machine's: a starved page is not judged on them.
    // A tour whose runs met a stall its probe did not gets one more try; two that disagree fail.
    let mut card = card;
    for tries in 1.. {
        model_of_the_page(&card)?;
        match disagreement(&card) {
            None => break,
            Some(why) if tries >= 2 => return Err(format!("two tours disagree with the page's model: {why}")),
            Some(why) => eprintln!("first tour: {why}; measuring again"),
        }
        card = tour_in_the_page(browser, server)?.1;
    }
    Ok(())
}

/// The page's setup is modelled as one deep (a frame shown at the refresh
/// after it is ready) and predicted on, or the test is skipped when the
/// page missed refreshes (its own probe against its measure of the screen).
fn model_of_the_page(card: &ReportCard) -> Result<(), String> {
    let monitor = card.monitors.first().ok_or("the card has a monitor")?;
    let screen = monitor.present_cadence_hz.unwrap_or(f64::NAN);
    let probe = monitor.present_modes.first().and_then(|p| p.intervals.as_ref());
    let (mean, p99) = probe.map_or((f64::NAN, f64::NAN), |i| (i.mean_ms, i.p99_ms));
    let missed = 1.0 - 1000.0 / screen / mean;
    let evidence = format!(
        "the page missed {:.0} % of the screen's refreshes, its probe's p99 interval {p99:.1} ms",
        missed * 100.0
    );
    let starved = missed > crate::browser::STARVED_SHARE || p99 >= 1.5 * 1000.0 / screen;
    crate::browser::skip_if_starved(starved, &evidence, "the tour's model of the page")?;
    // A busy machine's late callbacks also put the probe's frames more than a
    // refresh from their vblank, and too few are left to model.
    let unmodelled = monitor.setup.is_none() && crate::browser::machine_busy();
    crate::browser::skip_if_starved(
        unmodelled,
        &format!("the page's setup not modelled ({:?})", monitor.notes),
        "its model",
    )?;
    let setup = monitor.setup.as_ref().ok_or_else(|| format!("the page's setup is modelled: {:?}", monitor.notes))?;
    // A frame whose callback ran late in its refresh (a busy machine) is
    // shown one refresh later: the page's own counts cannot see that delay.
    let late = setup.queue_depth != 1 && crate::browser::machine_busy();
    crate::browser::skip_if_starved(
        late,
        &format!("the page modelled {} deep ({setup:?})", setup.queue_depth),
        "its queue depth",
    )?;
    assert_eq!(setup.queue_depth, 1, "requestAnimationFrame shows a frame at the next refresh: {setup:?}");
    assert!(
        monitor.predictions.iter().all(|p| p.model == Some(timestep_lab::report::RunOrigin::Setup)),
        "predicted on the setup"
    );
    Ok(())
}

/// Runs a short tour in the page; returns its card (the file, and read back)
/// once the card and its page have downloaded.
fn tour_in_the_page(browser: &Browser, server: &Server) -> Result<(std::path::PathBuf, ReportCard), String> {
    let query =
        "?measure&strategies=catch-up,interpolated,fuzzy&seconds-per-strategy=2&probe-seconds=2&window-size=480x270";
    browser.clear_cards()?;
    browser.open(&format!("{}/{query}", server.base))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let json = loop {
        if let Some((json, _html)) = browser.downloaded_card() {
            break json;
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("no card and page downloaded after 90 s; the page says '{}'", browser.message()?));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    std::thread::sleep(Duration::from_millis(500));
    let card = ReportCard::read(&json).map_err(|e| e.to_string())?;
    let monitor = card.monitors.first().ok_or("the card has a monitor")?;
    let strategies: Vec<&str> = monitor.runs.iter().map(|r| r.strategy.as_str()).collect();
    assert_eq!(
        strategies,
        ["catch-up", "interpolated", "fuzzy"],
        "one run per strategy with vsync on (a browser has no vsync off)"
    );
    for run in &monitor.runs {
        let first_bin = run.present_interval_histogram.as_ref().and_then(|h| h.counts.first().copied());
        assert_eq!(first_bin.unwrap_or(0), 0, "{}: a browser shows no two frames in one refresh", run.strategy);
    }
    Ok((json, card))
}

/// Why catch-up or interpolated disagrees with its prediction on `card`'s
/// monitor, if one does; prints the measured/predicted ratios either way.
fn disagreement(card: &ReportCard) -> Option<String> {
    let monitor = card.monitors.first()?;
    let mut why = Vec::new();
    for strategy in ["catch-up", "interpolated"] {
        let find = |runs: &[RunRecord]| runs.iter().find(|r| r.strategy == strategy).cloned();
        let (Some(measured), Some(predicted)) = (find(&monitor.runs), find(&monitor.predictions)) else {
            why.push(format!("{strategy}: no run or no prediction"));
            continue;
        };
        let ranges: Vec<_> = monitor.prediction_ranges.iter().filter(|r| r.strategy == strategy).collect();
        let agreement = judge::agreement(&[&measured], &[&predicted], &ranges, monitor.refresh_hz(), 120.0);
        let ratio = |m: Option<f64>, p: Option<f64>| match (m, p) {
            (Some(m), Some(p)) if p != 0.0 => format!("{:.2}", m / p),
            (m, p) => format!("{m:?}/{p:?}"),
        };
        eprintln!(
            "{strategy}: measured/predicted judder {}, hitches/min {}, latency {}; range {:?}; setup {:?}",
            ratio(measured.figure(&JUDDER_MS), predicted.figure(&JUDDER_MS)),
            ratio(measured.hitches_per_min(), predicted.hitches_per_min()),
            ratio(measured.figure(&LATENCY_MS), predicted.figure(&LATENCY_MS)),
            ranges.first(),
            monitor.setup
        );
        if agreement.agreeing != 1 {
            why.push(agreement.sentence());
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// `?compare`: a user with only a phone picks report cards and gets the
/// comparison page, made in the browser.
fn compare_in_the_page(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    browser.open(&format!("{}/?compare", server.base))?;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card");
    let deadline = std::time::Instant::now() + START;
    // The picker works once the wasm is loaded; pick again until the page has turned.
    loop {
        browser.pick_files("#cards", &[data.join("60hz.json"), data.join("144hz.json")])?;
        std::thread::sleep(Duration::from_millis(500));
        let url = browser.eval("return location.href")?;
        if url.as_str().is_some_and(|u| u.starts_with("blob:")) {
            break;
        }
        if std::time::Instant::now() > deadline {
            return Err(format!("still at {url}; the page says '{}'", browser.message()?));
        }
    }
    let text = browser.eval("return document.body.innerText")?;
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("monitor 1 (60 Hz)") && text.contains("144"), "both cards are columns: {text}");
    let svg = browser.eval("return document.querySelectorAll('svg').length")?;
    assert!(svg.as_u64().is_some_and(|n| n >= 1), "the page's bar charts: {svg}");
    Ok(())
}

fn a_bad_parameter_is_shown(browser: &Browser, server: &Server, _backend: Backend) -> Result<(), String> {
    for (query, says) in [
        ("?tick-rate=5000", "tick-rate: 5000 is outside 1–1000 Hz"),
        ("?strategy=warp", "strategy: 'warp' is not one of"),
        ("?lanes=fuzzy,fuzzy", "lanes: fuzzy is listed twice"),
        ("?strategy=fuzzy&strategy=auto", "strategy is given twice"),
        ("?monitor=1", "monitor: not on a page"),
        ("?fullscreen", "fullscreen: not on a page"),
        ("?present-mode=mailbox", "present-mode: not on a page"),
        ("?measure&out=/etc/passwd", "out: not on a page"),
        ("?screenshot=x.png&exit-after=2", "screenshot: not on a page"),
    ] {
        browser.open(&format!("{}/{query}", server.base))?;
        let deadline = std::time::Instant::now() + START;
        let message = loop {
            let message = browser.message()?;
            if !message.is_empty() || std::time::Instant::now() > deadline {
                break message;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(message.contains(says), "{query}: the page says '{message}', not '{says}'");
        assert!(browser.stats()?.is_null(), "{query}: no run starts");
        assert_eq!(browser.eval("return 1 + 1")?, 2, "{query}: the page still answers");
    }
    Ok(())
}
