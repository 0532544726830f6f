//! A minimal game paced by `timestep-core`: a square glides across a winit
//! window drawn with wgpu; fixed 60 Hz updates, the picture interpolated.
//!
//! ```sh
//! cargo run --release --example minimal_game                         # Esc quits
//! cargo run --example minimal_game -- --strategy catch-up --seconds 3   # prints the run's figures
//! ```
//! The game implements `Simulation` (a fixed step) and `FrameHost` (clock,
//! render, present); a `Session` decides the steps, the picture and when to
//! wake, and measures judder, hitches and latency on the way.

use std::sync::Arc;
use timestep_core::frame::{FrameHost, Simulation};
use timestep_core::session::{DisplayInfo, Presented, Session};
use timestep_core::strategy::{StrategyConfig, StrategyId, View};
use timestep_core::time::{Clock, Nanos, RealClock, nanos_to_secs, secs_to_nanos};
use winit::{application::ApplicationHandler, event::WindowEvent, event_loop::*, keyboard::*, window::*};

/// The game state: a square moving at constant speed, bouncing off the edges.
#[derive(Default)]
struct Square {
    x: f64,
    previous_x: f64,
    speed: f64,
}

impl Simulation for Square {
    fn step(&mut self, dt: Nanos) {
        self.previous_x = self.x;
        self.x += self.speed * nanos_to_secs(dt);
        if !(0.0..=0.9).contains(&self.x) {
            self.speed = -self.speed;
            self.x = self.x.clamp(0.0, 0.9);
        }
    }
}

impl Square {
    /// Where to draw it: interpolate between the last two steps, or extrapolate.
    fn drawn_x(&self, view: View) -> f32 {
        let x = match view {
            View::Latest => self.x,
            View::Interpolate { alpha } => self.previous_x + (self.x - self.previous_x) * f64::from(alpha),
            View::Extrapolate { ahead } => self.x + self.speed * nanos_to_secs(ahead),
        };
        x as f32
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

/// The platform side of a frame, as the session sees it.
struct Host<'a> {
    gpu: &'a mut Gpu,
    clock: &'a RealClock,
}

impl FrameHost<Square> for Host<'_> {
    fn now(&mut self) -> Nanos {
        self.clock.now()
    }

    fn render(&mut self, square: &Square, view: View) {
        let size = self.gpu.window.inner_size();
        let (x, h) = (square.drawn_x(view) * 2.0 - 1.0, 0.1 * size.width as f32 / size.height.max(1) as f32);
        let corners: [f32; 8] = [x, -h, x + 0.2, -h, x, h, x + 0.2, h];
        let bytes: Vec<u8> = corners.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.gpu.queue.write_buffer(&self.gpu.quad, 0, &bytes);
        let wgpu::CurrentSurfaceTexture::Success(frame) = self.gpu.surface.get_current_texture() else { return };
        let view = frame.texture.create_view(&Default::default());
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        let ops = wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store };
        let attachment = wgpu::RenderPassColorAttachment { view: &view, depth_slice: None, resolve_target: None, ops };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(attachment)],
            ..Default::default()
        });
        pass.set_pipeline(&self.gpu.pipeline);
        pass.set_vertex_buffer(0, self.gpu.quad.slice(..));
        pass.draw(0..4, 0..1);
        drop(pass);
        self.gpu.queue.submit([encoder.finish()]);
        self.gpu.frame = Some(frame);
    }

    fn present(&mut self) -> Nanos {
        if let Some(frame) = self.gpu.frame.take() {
            self.gpu.window.pre_present_notify();
            self.gpu.queue.present(frame);
        }
        self.clock.now()
    }
}

struct Game {
    strategy: StrategyId,
    quit_at: Option<Nanos>,
    clock: RealClock,
    gpu: Option<Gpu>,
    session: Option<Session<Square>>,
    /// When the strategy wants the next frame (`None`: as soon as the present returns).
    wake: Option<Nanos>,
}

impl ApplicationHandler for Game {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let window = Arc::new(event_loop.create_window(Window::default_attributes()).expect("a window"));
        let square = Square { speed: 0.5, ..Square::default() };
        let now = self.clock.now();
        self.session =
            Some(Session::new(self.strategy, StrategyConfig::default(), square, DisplayInfo::default(), now));
        self.gpu = Some(Gpu::new(window));
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let (Some(gpu), Some(session)) = (self.gpu.as_mut(), self.session.as_mut()) else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput { event, .. } if event.physical_key == PhysicalKey::Code(KeyCode::Escape) => {
                event_loop.exit();
            }
            WindowEvent::RedrawRequested => {
                let report = session.run_frame(&mut Host { gpu, clock: &self.clock });
                session.record(&report, Presented::SHOWN);
                self.wake = report.wake.at;
                if self.quit_at.is_some_and(|t| self.clock.now() >= t) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    /// The next frame when the strategy asks for it (fixed-fps, paced), else at once: vsync paces.
    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(gpu) = &self.gpu else { return };
        match self.wake.filter(|&at| at > self.clock.now()) {
            Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(self.clock.instant_at(at))),
            None => {
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
    let clock = RealClock::new();
    let quit_at = value("--seconds").map(|s| s.parse::<f64>()).transpose()?.map(|s| clock.now() + secs_to_nanos(s));
    let mut game = Game { strategy, quit_at, clock, gpu: None, session: None, wake: None };
    EventLoop::new()?.run_app(&mut game)?;
    if let Some(session) = game.session.as_mut() {
        let r = session.report(game.clock.now());
        print_figures(format_args!(
            "{}: {} updates, judder {:.2} ms, latency {:.2} ms, speed {:.4}",
            r.strategy, r.total_updates, r.stats.judder_ms, r.stats.latency_ms, r.stats.speed_ratio
        ));
    }
    Ok(())
}
