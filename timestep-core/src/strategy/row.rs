//! A strategy's row in the registry: what a HUD, a report and a key table
//! say about it, and how to build it. Each strategy's file holds its
//! own `const` row; [`super::REGISTRY`] lists them in key order.

use super::{AnyStrategy, Startup, Strategy, StrategyConfig};
use alloc::boxed::Box;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};

/// How a row builds its strategy.
#[derive(Clone, Copy)]
enum Build {
    /// One of the ten, held by value.
    Inline(fn(&StrategyConfig) -> AnyStrategy),
    /// Any other, boxed.
    Boxed(fn(&StrategyConfig) -> Box<dyn Strategy>),
}

/// A strategy's registry row: its stable name, the sentences a HUD, a help
/// text, the README and reports say about it, what kind of loop it is, and
/// how it is built. Ids compare by name: names are unique.
///
/// A game's own loop is a row built by [`StrategyRow::new`] (and the
/// `with_` methods), run as [`super::StrategyId::Custom`]:
///
/// ```
/// # use timestep_core::strategy::{FrameContext, Order, Plan, Steps, Strategy, StrategyRow};
/// # use timestep_core::{StrategyConfig, StrategyId, View};
/// # #[derive(Clone, Debug)] struct Mine;
/// # impl Strategy for Mine {
/// #     fn begin(&mut self, _: &FrameContext) -> Plan { Plan { order: Order::StepsThenRender(Steps::NONE), view: View::Latest, content_time: 0 } }
/// #     fn reset(&mut self, _: &StrategyConfig) {}
/// # }
/// const MINE: StrategyRow = StrategyRow::new("mine", "my game's loop", |_config| Box::new(Mine))
///     .with_trades("nothing yet")
///     .with_paces_itself(true);
/// let id = StrategyId::Custom(&MINE);
/// assert_eq!((id.name(), id.paces_itself(), id.to_string()), ("mine", true, "mine".to_owned()));
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct StrategyRow {
    /// The stable name it parses from and reports use (`catch-up`).
    pub name: &'static str,
    /// One line: what it does and what it costs.
    pub summary: &'static str,
    /// Where the idea comes from: the articles and answers that describe it.
    pub source: &'static str,
    /// What it trades away for what it gives, in a few words (a comparison's "ship this" says it).
    pub trades: &'static str,
    /// It decides when frames start (its frames return a wake time) instead
    /// of taking them as the display gives them.
    pub paces_itself: bool,
    /// The world advances in fixed steps of the tick (all but `variable`).
    pub keeps_a_fixed_step: bool,
    /// Whether its picture moves from the first frames or waits for the first tick.
    pub startup: Startup,
    build: Build,
}

/// What a HUD, a help text and reports say about a strategy: its row.
pub type StrategyInfo = StrategyRow;

impl StrategyRow {
    /// A row named `name`, summed up in one line, built by `build`: by
    /// default it keeps a fixed step, does not pace itself, moves from its
    /// first frames, and has no source or trades.
    pub const fn new(
        name: &'static str,
        summary: &'static str,
        build: fn(&StrategyConfig) -> Box<dyn Strategy>,
    ) -> StrategyRow {
        StrategyRow::with_build(name, summary, Build::Boxed(build))
    }

    /// One of the ten, held by value.
    pub(super) const fn inline(
        name: &'static str,
        summary: &'static str,
        build: fn(&StrategyConfig) -> AnyStrategy,
    ) -> StrategyRow {
        StrategyRow::with_build(name, summary, Build::Inline(build))
    }

    const fn with_build(name: &'static str, summary: &'static str, build: Build) -> StrategyRow {
        StrategyRow {
            name,
            summary,
            source: "",
            trades: "",
            paces_itself: false,
            keeps_a_fixed_step: true,
            startup: Startup::Moves,
            build,
        }
    }

    /// Where the idea comes from.
    pub const fn with_source(self, source: &'static str) -> StrategyRow {
        StrategyRow { source, ..self }
    }

    /// What it trades away for what it gives.
    pub const fn with_trades(self, trades: &'static str) -> StrategyRow {
        StrategyRow { trades, ..self }
    }

    /// Whether it decides when frames start.
    pub const fn with_paces_itself(self, paces_itself: bool) -> StrategyRow {
        StrategyRow { paces_itself, ..self }
    }

    /// Whether the world advances in fixed steps of the tick.
    pub const fn with_fixed_step(self, keeps_a_fixed_step: bool) -> StrategyRow {
        StrategyRow { keeps_a_fixed_step, ..self }
    }

    /// Whether its picture moves from the first frames or waits for the first tick.
    pub const fn with_startup(self, startup: Startup) -> StrategyRow {
        StrategyRow { startup, ..self }
    }

    /// A fresh strategy of this row.
    pub(super) fn build(&self, config: &StrategyConfig) -> AnyStrategy {
        match self.build {
            Build::Inline(build) => build(config),
            Build::Boxed(build) => AnyStrategy::Custom(build(config)),
        }
    }
}

impl fmt::Debug for StrategyRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StrategyRow").field("name", &self.name).finish_non_exhaustive()
    }
}

impl PartialEq for StrategyRow {
    fn eq(&self, other: &StrategyRow) -> bool {
        self.name == other.name
    }
}

impl Eq for StrategyRow {}

impl PartialOrd for StrategyRow {
    fn partial_cmp(&self, other: &StrategyRow) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for StrategyRow {
    fn cmp(&self, other: &StrategyRow) -> Ordering {
        self.name.cmp(other.name)
    }
}

impl Hash for StrategyRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}
