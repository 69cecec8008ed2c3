//! The `eval` language reference, `docs/eval.md`, is run: each example answers what the
//! page says, and every function of the language has an example there.

use strideweave::eval::{eval_line, FUNCTIONS};

const DOC: &str = include_str!("../docs/eval.md");

/// The `(expression, answer)` pairs of the page's ```eval blocks.
fn examples() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let mut lines = DOC.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```eval" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        assert!(
            block.len().is_multiple_of(2),
            "an eval block has an expression without its answer: {block:?}"
        );
        out.extend(block.chunks(2).map(|p| (p[0], p[1])));
    }
    out
}

#[test]
fn every_example_of_the_eval_reference_answers_as_written() {
    let ex = examples();
    assert!(ex.len() > 80, "only {} examples found", ex.len());
    for (expr, want) in ex {
        assert_eq!(eval_line(expr), want, "docs/eval.md: {expr}");
    }
}

#[test]
fn every_eval_function_has_an_example_in_the_reference() {
    let ex = examples();
    for name in FUNCTIONS {
        let call = format!("{name}(");
        assert!(
            ex.iter().any(|(e, _)| e.starts_with(&call)
                || e.contains(&format!("({call}"))
                || e.contains(&format!(" {call}"))),
            "docs/eval.md has no example of {name}"
        );
    }
}

#[test]
fn the_reference_stands_on_its_own() {
    for forbidden in ["../shared", "seeds/", "issue"] {
        assert!(
            !DOC.contains(forbidden),
            "docs/eval.md mentions {forbidden}"
        );
    }
}
