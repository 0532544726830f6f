//! The command line, run as a user runs it: `simulate` (its flags and output
//! formats, start phases and sweeps, trace replay, the article's table, seed
//! 000's timeline, determinism across displays), `run`, `compare`, output
//! paths, run lengths, `diagnose`, and the README's generated blocks.

#[path = "../support/banner.rs"]
mod banner;
#[path = "../support/report_card/mod.rs"]
mod report_card;

mod binary;
mod compare;
mod diagnose;
mod modules;
mod output_paths;
mod readme;
mod registry;
mod run_flags;
mod run_length;
mod simulate_article;
mod simulate_determinism;
mod simulate_flags;
mod simulate_pacing_answer;
mod simulate_phases;
mod simulate_trace;
