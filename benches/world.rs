//! World benchmarks: the cost of stepping and drawing 100k entities.
//!
//! - `world_step/100000`: one step of a world with 100k load sprites (plus
//!   the demo cast). Target ≤ 1 ms.
//! - `write_instances_interpolate/100000`: interpolating all of them into a
//!   reused `Vec<Instance>`. Target ≤ 1 ms.
//! - `plain_copy/100000`: `copy_from_slice` of as many bytes as those
//!   instances occupy — the floor any "write N instances" can approach; the
//!   ratio to it says how much the interpolation itself costs.
//!
//! Run with `cargo bench --bench world -- --warm-up-time 1 --measurement-time 3`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use timestep_lab::host::Simulation;
use timestep_lab::sim::{Instance, World, WorldConfig};
use timestep_lab::strategy::View;
use timestep_lab::time::Nanos;

const ENTITIES: usize = 100_000;
const TICK: Nanos = 16_666_667;

fn world() -> World {
    let mut w = World::new(&WorldConfig { extra_sprites: ENTITIES, ..WorldConfig::default() });
    // Past the first tick, so previous and current differ.
    w.step(TICK);
    w
}

fn bench_world(c: &mut Criterion) {
    let mut w = world();
    let bytes = (w.entity_count() * size_of::<Instance>()) as u64;

    let mut group = c.benchmark_group("world_step");
    group.throughput(Throughput::Elements(ENTITIES as u64));
    group.bench_function(BenchmarkId::from_parameter(ENTITIES), |b| b.iter(|| w.step(black_box(TICK))));
    group.finish();

    let mut out: Vec<Instance> = Vec::with_capacity(w.max_instances());
    let mut group = c.benchmark_group("write_instances_interpolate");
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function(BenchmarkId::from_parameter(ENTITIES), |b| {
        b.iter(|| {
            w.write_instances(black_box(View::Interpolate { alpha: 0.37 }), &mut out);
            black_box(out.as_ptr());
        })
    });
    group.finish();

    let src = vec![0x5Au8; bytes as usize];
    let mut dst = vec![0u8; bytes as usize];
    let mut group = c.benchmark_group("plain_copy");
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function(BenchmarkId::from_parameter(ENTITIES), |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(dst.as_ptr());
        })
    });
    group.finish();
}

criterion_group!(benches, bench_world);
criterion_main!(benches);
