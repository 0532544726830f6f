//! Conway's Game of Life at 2 generations a second, drawn with the blending
//! factor: the port of the `game-loop` crate's `game_of_life` example.
//!
//! The game keeps its own state and its own update and draw; the pacer says
//! when to update and how far between two generations to draw. Headless: it
//! draws a small board as text, 10 frames a second, for 3 seconds.
//!
//! `cargo run -p timestep-core --example game_of_life`
#![expect(clippy::print_stdout, reason = "an example draws to the terminal")]

use timestep_core::{Frame, Pacer, Rate, StrategyId, pacer};

const WIDTH: usize = 8;
const HEIGHT: usize = 6;

/// The board now and one generation ago (what the blend starts from).
struct Life {
    cells: [[bool; WIDTH]; HEIGHT],
    previous: [[bool; WIDTH]; HEIGHT],
    generation: u32,
}

impl Life {
    fn glider() -> Life {
        let mut cells = [[false; WIDTH]; HEIGHT];
        for (y, x) in [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)] {
            cells[y][x] = true;
        }
        Life { cells, previous: cells, generation: 0 }
    }

    fn neighbours(&self, y: usize, x: usize) -> usize {
        let around = |n: usize, len: usize| [n + len - 1, n, n + 1].map(|v| v % len);
        let alive = around(y, HEIGHT).into_iter().flat_map(|ny| around(x, WIDTH).map(|nx| self.cells[ny][nx]));
        alive.filter(|&c| c).count() - usize::from(self.cells[y][x])
    }

    fn update(&mut self) {
        self.previous = self.cells;
        let next = |y: usize, x: usize| matches!((self.cells[y][x], self.neighbours(y, x)), (true, 2) | (_, 3));
        self.cells = std::array::from_fn(|y| std::array::from_fn(|x| next(y, x)));
        self.generation += 1;
    }

    /// The board as text, each cell blended from the previous generation as `frame` says.
    fn draw(&self, frame: &Frame) -> String {
        let shade = |was: bool, is: bool| {
            let level = frame.blend(f64::from(u8::from(was)), f64::from(u8::from(is)));
            [' ', '.', 'o', '#'][(level * 3.0).round() as usize]
        };
        let rows = (0..HEIGHT).map(|y| (0..WIDTH).map(|x| shade(self.previous[y][x], self.cells[y][x])).collect());
        rows.collect::<Vec<String>>().join("|")
    }
}

fn main() {
    let mut life = Life::glider();
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(2));
    // Nothing presents with vsync here: a frame limit paces the drawing instead.
    pacer.set_frame_limit(Some(Rate::from_hz(10)));
    pacer::run(
        &mut pacer,
        &mut life,
        |life, _ctx, _dt| life.update(),
        |life, ctx, frame| {
            let (t, renders) = (ctx.running_time().as_secs_f64(), ctx.renders());
            println!("{t:4.1} s frame {renders:2} generation {} |{}|", life.generation, life.draw(frame));
            if life.generation >= 6 {
                ctx.exit();
            }
        },
        |_life| {}, // the line above is the picture: nothing to present
    );
}
