//! Simulator benchmarks: simulated frames per second, per strategy, with the demo world.
//!
//! - `simulator_glaiel/<strategy>`: the article's run (`--model glaiel
//!   --updates 10000`, 60 Hz, vsync on) for each strategy; throughput is in
//!   simulated frames. Target ≥ 2 million frames/s on one core, i.e. the
//!   whole 10 000-update run in about 5 ms.
//! - `simulator_article/<run>`: the article's three table rows (A, B, C).
//! - `simulator_desktop_144_vsync_{on,off}/<strategy>`: 10 s of the desktop
//!   model at 144 Hz, each strategy, with vsync on and off.
//! - `simulator_null_world/catch-up`: the driver, strategy, virtual display
//!   and metrics alone.
//! - `metrics/record`: [`Metrics::record`] alone, per frame (a 59.94 Hz run
//!   with a double update and a repeat every 1000 frames and noisy input times).
//! - `metrics/stats`, `metrics/recent`: what the overlay asks each frame: the
//!   whole-run statistics (histogram percentiles) and the rolling window's
//!   (sorted exactly from the last 120 frames).
//!
//! Run with `cargo bench --bench simulator -- --warm-up-time 1 --measurement-time 5`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use timestep_lab::host::Simulation;
use timestep_lab::metrics::{FrameSample, Metrics};
use timestep_lab::monitor::{Preset, RunSpec, Stop, simulate_world};
use timestep_lab::sim::simulate;
use timestep_lab::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use timestep_lab::time::{NANOS_PER_SEC, Rate};

fn bench_strategy(c: &mut Criterion, group: &str, name: &str, spec: &RunSpec) {
    let frames = simulate(spec).frames;
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(frames));
    g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| black_box(simulate(black_box(spec)))));
    g.finish();
}

fn bench_simulator(c: &mut Criterion) {
    for id in StrategyId::ALL {
        bench_strategy(c, "simulator_glaiel", id.name(), &RunSpec::new(id, Preset::Glaiel));
    }
    let ntsc = Rate::new(60000, 1001).unwrap_or(Rate::from_hz(60));
    let fuzzy = |variant| StrategyConfig::default().with_fuzzy_variant(variant).with_vsync_detect(false);
    let article = [
        ("A_catch-up_60", RunSpec::new(StrategyId::CatchUp, Preset::Glaiel)),
        (
            "B_fuzzy-60-62_59.94",
            RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
                .with_refresh(ntsc)
                .with_config(fuzzy(FuzzyVariant::Fuzzy6062)),
        ),
        (
            "C_fuzzy-59-61_59.94_vsync-off",
            RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
                .with_refresh(ntsc)
                .with_vsync(false)
                .with_config(fuzzy(FuzzyVariant::Fuzzy5961)),
        ),
    ];
    for (name, spec) in &article {
        bench_strategy(c, "simulator_article", name, spec);
    }
    // The desktop model at 144 Hz, 10 s, with vsync on and off: off is
    // where the virtual monitor holds a self-paced present (`fixed-fps`,
    // `paced`) and checks every frame for one.
    let hz144 = Rate::from_hz(144);
    for vsync in [true, false] {
        let group = if vsync { "simulator_desktop_144_vsync_on" } else { "simulator_desktop_144_vsync_off" };
        for id in StrategyId::ALL {
            let spec = RunSpec::new(id, Preset::Desktop)
                .with_refresh(hz144)
                .with_vsync(vsync)
                .with_stop(Stop::Duration(10 * NANOS_PER_SEC));
            bench_strategy(c, group, id.name(), &spec);
        }
    }
}

/// A world that costs nothing: what the driver, strategy, virtual display and metrics cost alone.
struct NullWorld(u64);

impl Simulation for NullWorld {
    fn step(&mut self, dt: timestep_lab::time::Nanos) {
        self.0 = self.0.wrapping_add(dt);
    }
}

fn bench_overhead(c: &mut Criterion) {
    let spec = RunSpec::new(StrategyId::CatchUp, Preset::Glaiel);
    let frames = simulate(&spec).frames;
    let mut g = c.benchmark_group("simulator_null_world");
    g.throughput(Throughput::Elements(frames));
    g.bench_function(BenchmarkId::from_parameter("catch-up"), |b| {
        b.iter(|| black_box(simulate_world(black_box(&spec), &mut NullWorld(0), &mut |_| {})))
    });
    g.finish();
}

/// `n` frames on 59.94 Hz with 60 Hz ticks: a double update then a repeat
/// every 1000 frames, input read 2–4 ms into the frame.
fn ntsc_samples(n: u64) -> Vec<FrameSample> {
    let (refresh, tick) = (Rate::new(60000, 1001).unwrap_or(Rate::from_hz(60)), Rate::from_hz(60));
    (0..n)
        .map(|i| {
            let ticks = if i % 1000 == 500 { i + 1 } else { i };
            let start = refresh.tick_time(i);
            FrameSample {
                updates: 1,
                shown_updates: 1,
                content_time: tick.tick_time(ticks),
                input_time: start + 2_000_000 + (i * 7_919 % 2_000_000),
                display_time: refresh.tick_time(i + 1),
                game_time: tick.tick_time(ticks),
                repeats: 0,
            }
        })
        .collect()
}

fn bench_metrics(c: &mut Criterion) {
    let samples = ntsc_samples(100_000);
    let refresh = Some(Rate::new(60000, 1001).unwrap_or(Rate::from_hz(60)));
    let mut g = c.benchmark_group("metrics");
    g.throughput(Throughput::Elements(samples.len() as u64));
    g.bench_function("record", |b| {
        b.iter(|| {
            let mut metrics = Metrics::new(0, refresh);
            for sample in &samples {
                metrics.record(black_box(sample));
            }
            black_box(metrics.totals())
        })
    });
    let mut filled = Metrics::new(0, refresh);
    for sample in &samples {
        filled.record(sample);
    }
    g.throughput(Throughput::Elements(1));
    g.bench_function("stats", |b| b.iter(|| black_box(black_box(&filled).stats())));
    g.bench_function("recent", |b| b.iter(|| black_box(black_box(&filled).recent())));
    g.finish();
}

criterion_group!(benches, bench_simulator, bench_overhead, bench_metrics);
criterion_main!(benches);
