//! Tensor subcommands: `plan`, `pack`, `unpack` and `argmax` (see `spec/placements.md`).
//!
//! Every error is one line on stderr naming the rule broken, exit status 1, and OUT is
//! neither created nor modified.

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use strideweave::tensor::{prepare, AlignedBytes, DType, Op, Plan, TensorError, TensorSpec};

/// The tensor subcommands, flattened into the top-level command list.
#[derive(Subcommand)]
pub enum TensorCommand {
    /// Print, per port, the required bytes and alignment of a conversion (or the admission error).
    Plan(PlanArgs),
    /// Convert IN (laid out as --from) into OUT (laid out as --to): Cast or CastTess.
    Pack(ConvertArgs),
    /// The same conversion read the other way: tiled (or strided) IN to contiguous/strided OUT.
    Unpack(ConvertArgs),
    /// Index of the largest element along one axis, written as a contiguous i32/i64 tensor.
    Argmax(ArgmaxArgs),
}

/// Arguments of `plan`.
#[derive(Args)]
pub struct PlanArgs {
    /// Input spec, e.g. `f32[1,5,7,20]`.
    #[arg(long)]
    from: String,
    /// Output spec, e.g. `bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)`.
    #[arg(long)]
    to: String,
}

/// Arguments of `pack` and `unpack`.
#[derive(Args)]
pub struct ConvertArgs {
    /// Input spec.
    #[arg(long)]
    from: String,
    /// Output spec.
    #[arg(long)]
    to: String,
    /// Input file of raw bytes (at least the input's required bytes).
    input: PathBuf,
    /// Output file (updated in place when it already holds the required bytes).
    output: PathBuf,
}

/// Arguments of `argmax`.
#[derive(Args)]
pub struct ArgmaxArgs {
    /// The reduced axis.
    #[arg(long)]
    axis: usize,
    /// Input spec.
    #[arg(long)]
    from: String,
    /// Output dtype: i32 or i64.
    #[arg(long)]
    to: String,
    /// Input file.
    input: PathBuf,
    /// Output file.
    output: PathBuf,
}

/// Runs one tensor subcommand.
pub fn run(cmd: TensorCommand) -> ExitCode {
    let result = match cmd {
        TensorCommand::Plan(a) => plan_cmd(&a),
        TensorCommand::Pack(a) => convert_cmd(&a, false),
        TensorCommand::Unpack(a) => convert_cmd(&a, true),
        TensorCommand::Argmax(a) => argmax_cmd(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            // One line, whatever the message held.
            eprintln!("error: {}", msg.replace(['\n', '\r'], " "));
            ExitCode::from(1)
        }
    }
}

fn spec(text: &str, what: &str) -> Result<TensorSpec, String> {
    text.parse::<TensorSpec>()
        .map_err(|e| format!("{e} (in {what} `{text}`)"))
}

fn terr(e: TensorError) -> String {
    e.to_string()
}

fn conversion_plan(from: &str, to: &str) -> Result<Plan, String> {
    let from = spec(from, "--from")?;
    let to = spec(to, "--to")?;
    prepare(Op::conversion(&from, &to), &[from], &[to]).map_err(terr)
}

fn plan_cmd(a: &PlanArgs) -> Result<(), String> {
    let plan = conversion_plan(&a.from, &a.to)?;
    let mut out = format!("op: {}\n", plan.op().name());
    for (name, ports) in [("input", plan.inputs()), ("output", plan.outputs())] {
        for (i, p) in ports.iter().enumerate() {
            out += &format!(
                "{name} {i}: {}: {} bytes, align {}\n",
                p.spec, p.bytes, p.align
            );
        }
    }
    print!("{out}");
    Ok(())
}

fn read_input(path: &Path, required: u64) -> Result<AlignedBytes, String> {
    let mut f =
        fs::File::open(path).map_err(|e| format!("io: cannot open {}: {e}", path.display()))?;
    let len = f
        .metadata()
        .map_err(|e| format!("io: {}: {e}", path.display()))?
        .len();
    if len < required {
        return Err(format!(
            "input-too-short: {} holds {len} bytes, the input needs {required}",
            path.display()
        ));
    }
    let n = usize::try_from(required)
        .map_err(|_| format!("overflow: required bytes {required} exceed the address space"))?;
    let mut buf = AlignedBytes::zeroed(n);
    f.read_exact(buf.as_mut_slice())
        .map_err(|e| format!("io: reading {}: {e}", path.display()))?;
    Ok(buf)
}

/// Runs `plan` on IN and writes OUT per the spec: in place when OUT already holds at least
/// the required bytes, else a new zero-filled file of exactly the required size.
fn run_to_file(plan: &Plan, input: &Path, output: &Path) -> Result<(), String> {
    let src = read_input(input, plan.inputs()[0].bytes)?;
    let need = plan.outputs()[0].bytes;
    let n = usize::try_from(need)
        .map_err(|_| format!("overflow: required bytes {need} exceed the address space"))?;
    let existing = fs::metadata(output)
        .ok()
        .filter(|m| m.is_file() && m.len() >= need);
    let mut dst = AlignedBytes::zeroed(n);
    if existing.is_some() {
        let mut f = fs::File::open(output)
            .map_err(|e| format!("io: cannot open {}: {e}", output.display()))?;
        f.read_exact(dst.as_mut_slice())
            .map_err(|e| format!("io: reading {}: {e}", output.display()))?;
    }
    plan.run(&[src.as_slice()], &mut [dst.as_mut_slice()])
        .map_err(terr)?;
    if existing.is_some() {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(output)
            .map_err(|e| format!("io: cannot open {}: {e}", output.display()))?;
        f.seek(SeekFrom::Start(0))
            .and_then(|_| f.write_all(dst.as_slice()))
            .map_err(|e| format!("io: writing {}: {e}", output.display()))?;
    } else {
        fs::write(output, dst.as_slice())
            .map_err(|e| format!("io: writing {}: {e}", output.display()))?;
    }
    Ok(())
}

fn convert_cmd(a: &ConvertArgs, unpack: bool) -> Result<(), String> {
    let from = spec(&a.from, "--from")?;
    let to = spec(&a.to, "--to")?;
    if !unpack && from.placement.is_tiled() {
        return Err(format!(
            "unsupported-placement: pack reads a contiguous or strided input, --from is {} (use unpack)",
            from.placement.kind_name()
        ));
    }
    if unpack && to.placement.is_tiled() {
        return Err(format!(
            "unsupported-placement: unpack writes a contiguous or strided output, --to is {} (use pack)",
            to.placement.kind_name()
        ));
    }
    let plan = prepare(Op::conversion(&from, &to), &[from], &[to]).map_err(terr)?;
    run_to_file(&plan, &a.input, &a.output)
}

fn argmax_cmd(a: &ArgmaxArgs) -> Result<(), String> {
    let from = spec(&a.from, "--from")?;
    let dtype: DType = a.to.parse().map_err(terr)?;
    let dims = from.dims.without_axis(a.axis).map_err(terr)?;
    let to = TensorSpec::new(dims, dtype, Default::default()).map_err(terr)?;
    let plan = prepare(Op::Argmax { axis: a.axis }, &[from], &[to]).map_err(terr)?;
    run_to_file(&plan, &a.input, &a.output)
}
