//! A minimal game paced by `timestep-core`'s `Pacer`: a square glides across
//! a winit window drawn with wgpu; fixed 60 Hz updates, the picture blended.
//! The full form of the crate's winit recipe (timestep-core's README, "In a
//! winit 0.30 loop"): `about_to_wait` decides between `WaitUntil` and
//! `request_redraw`, and a frame that waited finishes with `sleep_until`.
//!
//! ```sh
//! cargo run --release --example minimal_game                         # Esc quits
//! cargo run --example minimal_game -- --strategy catch-up --seconds 3   # prints the run's figures
//! ```

use std::sync::Arc;
use std::time::Duration;
use timestep_core::{DEFAULT_SPIN, EVENT_LOOP_EARLY, Frame, Instant, Pacer, Present, Rate, StrategyId, sleep_until};
use winit::{application::ApplicationHandler, event::WindowEvent, event_loop::*, keyboard::*, window::*};

/// The game state: a square moving at constant speed, bouncing off the edges.
#[derive(Default)]
struct Square {
    x: f64,
    previous_x: f64,
    speed: f64,
}

impl Square {
    fn update(&mut self, dt: Duration) {
        self.previous_x = self.x;
        self.x += self.speed * dt.as_secs_f64();
        if !(0.0..=0.9).contains(&self.x) {
            self.speed = -self.speed;
            self.x = self.x.clamp(0.0, 0.9);
        }
    }

    /// Where the frame draws it: between the last two steps, the latest, or ahead.
    fn drawn_x(&self, frame: &Frame) -> f32 {
        frame.blend(self.previous_x, self.x) as f32
    }
}

const SHADER: &str = "@vertex fn vs(@location(0) p: vec2f) -> @builtin(position) vec4f { return vec4f(p, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4f { return vec4f(1.0, 0.6, 0.2, 1.0); }";

struct Gpu {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    quad: wgpu::Buffer,
    frame: Option<wgpu::SurfaceTexture>,
}

impl Gpu {
    fn new(window: Arc<Window>) -> Gpu {
        let instance = wgpu::Instance::default();
        let surface = instance.create_surface(Arc::clone(&window)).expect("a surface for the window");
        let options = wgpu::RequestAdapterOptions { compatible_surface: Some(&surface), ..Default::default() };
        let adapter = pollster::block_on(instance.request_adapter(&options)).expect("a GPU adapter");
        let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).expect("a device");
        let size = window.inner_size();
        let config = surface.get_default_config(&adapter, size.width.max(1), size.height.max(1)).expect("a format");
        surface.configure(&device, &config);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 8,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x2],
                })],
            },
            primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleStrip, ..Default::default() },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                targets: &[Some(config.format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
        let quad =
            device.create_buffer(&wgpu::BufferDescriptor { label: None, size: 32, usage, mapped_at_creation: false });
        Gpu { window, surface, device, queue, pipeline, quad, frame: None }
    }
}

impl Gpu {
    /// Draws the square at `x` (0–1) into the next surface texture; returns
    /// how long acquiring it blocked (vsync shows up there or in the present).
    fn draw(&mut self, x: f32) -> Duration {
        let size = self.window.inner_size();
        let (x, h) = (x * 2.0 - 1.0, 0.1 * size.width as f32 / size.height.max(1) as f32);
        let corners: [f32; 8] = [x, -h, x + 0.2, -h, x, h, x + 0.2, h];
        let bytes: Vec<u8> = corners.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.queue.write_buffer(&self.quad, 0, &bytes);
        let acquire = Instant::now();
        let wgpu::CurrentSurfaceTexture::Success(frame) = self.surface.get_current_texture() else {
            return acquire.elapsed();
        };
        let blocked = acquire.elapsed();
        let view = frame.texture.create_view(&Default::default());
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let ops = wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store };
        let attachment = wgpu::RenderPassColorAttachment { view: &view, depth_slice: None, resolve_target: None, ops };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(attachment)],
            ..Default::default()
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.quad.slice(..));
        pass.draw(0..4, 0..1);
        drop(pass);
        self.queue.submit([encoder.finish()]);
        self.frame = Some(frame);
        blocked
    }

    /// Shows what `draw` drew; returns how long the present blocked.
    fn present(&mut self) -> Duration {
        let start = Instant::now();
        if let Some(frame) = self.frame.take() {
            self.window.pre_present_notify();
            self.queue.present(frame);
        }
        start.elapsed()
    }
}

struct Game {
    pacer: Pacer,
    square: Square,
    gpu: Option<Gpu>,
    /// When the pacer wants the next frame (`None`: as soon as the present returns).
    wake: Option<Instant>,
    quit_at: Option<Instant>,
}

impl Game {
    /// One frame: finish the wait, step, draw, present, step (`paced`), ask for the wake.
    fn frame(&mut self) {
        let Some(gpu) = self.gpu.as_mut() else { return };
        // `WaitUntil` woke us `EVENT_LOOP_EARLY` early: sleep and spin to the exact time.
        if let Some(wake) = self.wake.take() {
            sleep_until(wake, DEFAULT_SPIN);
        }
        let frame = self.pacer.advance(Instant::now());
        frame.updates().for_each(|dt| self.square.update(dt));
        let blocked = gpu.draw(self.square.drawn_x(&frame)) + gpu.present();
        let present = Present::at(Instant::now()).blocked(blocked);
        self.pacer.presented(present).for_each(|dt| self.square.update(dt));
        self.wake = self.pacer.finish(Instant::now());
    }
}

impl ApplicationHandler for Game {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let window = Arc::new(event_loop.create_window(Window::default_attributes()).expect("a window"));
        // winit reports millihertz: 59940 is the 60000/1001 Hz such a monitor runs at.
        let refresh = window.current_monitor().and_then(|m| m.refresh_rate_millihertz());
        self.pacer.set_refresh(refresh.and_then(|mhz| Rate::new(mhz.into(), 1000).ok()));
        self.gpu = Some(Gpu::new(window));
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. } if event.physical_key == PhysicalKey::Code(KeyCode::Escape) => {
                event_loop.exit();
            }
            WindowEvent::RedrawRequested => {
                self.frame();
                if self.quit_at.is_some_and(|t| Instant::now() >= t) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    /// Wait for the pacer's wake (`fixed-fps`, `paced`, a frame limit), else
    /// draw at once: the present blocks under vsync. Never `Poll`.
    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(gpu) = &self.gpu else { return };
        match self.wake {
            Some(wake) if wake > Instant::now() + EVENT_LOOP_EARLY => {
                event_loop.set_control_flow(ControlFlow::WaitUntil(wake - EVENT_LOOP_EARLY));
            }
            _ => {
                gpu.window.request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            }
        }
    }
}

#[expect(clippy::print_stdout, reason = "the example's one line of output")]
fn print_figures(line: std::fmt::Arguments<'_>) {
    println!("{line}");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1));
    let strategy = StrategyId::parse(value("--strategy").map_or("interpolated", String::as_str))?;
    let seconds = value("--seconds").map(|s| s.parse::<f64>()).transpose()?;
    let quit_at = seconds.map(|s| Duration::try_from_secs_f64(s).map(|d| Instant::now() + d)).transpose()?;
    let pacer = Pacer::new(strategy, Rate::from_hz(60));
    let square = Square { speed: 0.5, ..Square::default() };
    let mut game = Game { pacer, square, gpu: None, wake: None, quit_at };
    EventLoop::new()?.run_app(&mut game)?;
    let pacer = &game.pacer;
    print_figures(format_args!(
        "{}: {} updates, {:.2} s of game time; {}",
        pacer.strategy(),
        pacer.total_updates(),
        pacer.game_time().as_secs_f64(),
        pacer.verdict().text
    ));
    Ok(())
}
