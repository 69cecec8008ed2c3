//! Tensor subcommands: `plan`, `pack`, `unpack` and `argmax` (see `spec/placements.md`).
//!
//! Every error is one line on stderr naming the rule broken, exit status 1, and OUT is
//! neither created nor modified.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::files::{Input, Output};
use crate::output;
use clap::{Args, Subcommand};
use strideweave::tensor::{prepare, DType, Op, Plan, Rule, RunOptions, TensorError, TensorSpec};

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
    /// Split the work into this many parts, one per thread (1: one thread); 0, the
    /// default, is automatic: one per core from 2 MiB of input and output, else one.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// Arguments of `argmax`.
#[derive(Args)]
pub struct ArgmaxArgs {
    /// The reduced axis: 0 is the outermost dim of `--from` (a negative number is read,
    /// so that it gets the rule's one-line error rather than clap's hint to pass it
    /// after `--`).
    #[arg(long, allow_negative_numbers = true)]
    axis: i64,
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
    /// Split the work into this many parts, one per thread (1: one thread); 0, the
    /// default, is automatic.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// Runs one tensor subcommand.
pub fn run(cmd: TensorCommand) -> ExitCode {
    let result = match cmd {
        TensorCommand::Plan(a) => plan_cmd(&a),
        TensorCommand::Pack(a) => convert_cmd(&a, false).map(|()| ExitCode::SUCCESS),
        TensorCommand::Unpack(a) => convert_cmd(&a, true).map(|()| ExitCode::SUCCESS),
        TensorCommand::Argmax(a) => argmax_cmd(&a).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(msg) => output::fail(&msg),
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

fn plan_cmd(a: &PlanArgs) -> Result<ExitCode, String> {
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
    Ok(output::print(&out))
}

/// Runs `plan` on IN and writes OUT per the spec: in place when OUT already holds at least
/// the required bytes, else a new zero-filled file of exactly the required size. Both files
/// are memory-mapped, and OUT is replaced all or nothing (see [`crate::files`]); the work
/// is split into `threads` parts (0: automatic).
fn run_to_file(plan: &Plan, input: &Path, output: &Path, threads: usize) -> Result<(), String> {
    let src = Input::open(input, plan.inputs()[0].bytes)?;
    let mut dst = Output::create(output, plan.outputs()[0].bytes, true)?;
    let options = RunOptions::new().threads(threads);
    plan.run_with_options(&[src.bytes()], &mut [dst.bytes_mut()], options)
        .map_err(terr)?;
    dst.commit()
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
    run_to_file(&plan, &a.input, &a.output, a.threads)
}

fn argmax_cmd(a: &ArgmaxArgs) -> Result<(), String> {
    let from = spec(&a.from, "--from")?;
    let axis = usize::try_from(a.axis).map_err(|_| {
        terr(TensorError::new(
            Rule::AxisOutOfRange,
            format!(
                "axis {} of a rank-{} tensor: axes count from 0, the outermost dim (no negative axes: the last of N dims is N-1)",
                a.axis,
                from.dims.extents().len()
            ),
        ))
    })?;
    let dtype: DType = a.to.parse().map_err(|e| {
        // A whole spec where the dtype alone belongs: say so (the output's dims follow
        // from the input and the axis).
        if a.to.contains('[') {
            format!(
                "syntax: argmax --to takes the index dtype only (i32 or i64), not a spec: `{}`; the output dims are the input's without axis {}",
                a.to, axis
            )
        } else {
            terr(e)
        }
    })?;
    let dims = from.dims.without_axis(axis).map_err(terr)?;
    let to = TensorSpec::new(dims, dtype, Default::default()).map_err(terr)?;
    let plan = prepare(Op::Argmax { axis }, &[from], &[to]).map_err(terr)?;
    run_to_file(&plan, &a.input, &a.output, a.threads)
}
