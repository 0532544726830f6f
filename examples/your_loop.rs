//! Bring your own loop: a game's own timing strategy, written here, run by
//! the virtual monitor beside the lab's ten, printed as `simulate` prints.
//!
//! ```sh
//! cargo run --example your_loop                                    # Glaiel's model: 60, 144, 240 Hz, VRR
//! cargo run --example your_loop -- --refresh 60 --compositor weston --model desktop
//! cargo run --example your_loop -- --card docs/compare/report-llvmpipe-on-linux-144hz-20261127-2037.json   # a measured machine's setup
//! ```
//! Every `simulate` flag works (`--vsync off`, `--seconds 10`, `--format json`, `--trace FILE`…);
//! `--strategy` defaults to `all`: yours after the lab's.

use clap::Parser;
use timestep_lab::commands::simulate::{SimulateArgs, output};
use timestep_lab::registry;
use timestep_lab::strategy::{FrameContext, Order, Plan, Steps, Strategy, StrategyRow};
use timestep_lab::strategy::{StrategyConfig, StrategyId, View};
use timestep_lab::time::Nanos;

/// Your loop: fixed steps from an accumulator that forgets a frame longer
/// than a quarter second, drawn between the last two states.
#[derive(Clone, Debug)]
struct YourLoop {
    period: Nanos,
    last: Option<Nanos>,
    origin: Nanos,
    ticks: u64,
    backlog: Nanos,
}

impl YourLoop {
    fn new(config: &StrategyConfig) -> YourLoop {
        YourLoop { period: config.tick_rate.period(), last: None, origin: 0, ticks: 0, backlog: 0 }
    }
}

impl Strategy for YourLoop {
    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let last = *self.last.get_or_insert(ctx.now);
        if self.ticks == 0 && self.backlog == 0 {
            self.origin = ctx.now;
        }
        self.backlog += ctx.now.saturating_sub(last).min(250_000_000);
        self.last = Some(ctx.now);
        let steps = self.backlog / self.period;
        (self.backlog, self.ticks) = (self.backlog % self.period, self.ticks + steps);
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(u32::try_from(steps).unwrap_or(u32::MAX))),
            view: View::Interpolate { alpha: self.backlog as f64 / self.period as f64 },
            // The picture is a tick behind: the previous tick plus the leftover.
            content_time: (self.origin + self.ticks * self.period + self.backlog).saturating_sub(self.period),
        }
    }

    fn reset(&mut self, config: &StrategyConfig) {
        *self = YourLoop::new(config);
    }
}

/// Its row: the name `--strategy` takes and the table shows, one line about it.
static YOUR_LOOP: StrategyRow =
    StrategyRow::new("your-loop", "fixed steps, a long frame forgotten, interpolated", |c| Box::new(YourLoop::new(c)));

/// `simulate`'s flags, with `--strategy all` unless given.
#[derive(Parser)]
struct Args {
    #[command(flatten)]
    simulate: SimulateArgs,
}

/// What the example prints for `args` (its command-line arguments).
///
/// # Errors
/// Bad flags, or a run `simulate` refuses (the message says which).
pub fn report(args: &[String]) -> Result<String, String> {
    if registry::parse(YOUR_LOOP.name).is_err() {
        registry::register(StrategyId::Custom(&YOUR_LOOP))?;
    }
    let mut full = vec!["your_loop".to_owned()];
    if !args.iter().any(|a| a.starts_with("--strategy")) {
        full.extend(["--strategy".to_owned(), "all".to_owned()]);
    }
    if !args.iter().any(|a| a.starts_with("--refresh") || a.starts_with("--card") || a.starts_with("--trace")) {
        full.extend(["--refresh".to_owned(), "60,144,240,vrr:48-144".to_owned()]);
    }
    full.extend(args.iter().cloned());
    let parsed = Args::try_parse_from(full).map_err(|e| e.to_string())?;
    output(&parsed.simulate).map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match report(&args) {
        Ok(table) => {
            #[expect(clippy::print_stdout, reason = "the example's output is its table")]
            {
                print!("{table}");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            #[expect(clippy::print_stderr, reason = "the example's errors")]
            {
                eprintln!("your_loop: {message}");
            }
            std::process::ExitCode::from(2)
        }
    }
}
