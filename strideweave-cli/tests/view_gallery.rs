//! The gallery of `docs/viewing.md` is what the CLI renders today: every entry of
//! `docs/gallery/gallery.txt` is rendered and compared byte for byte with the committed
//! file. Regenerate with
//! `STRIDEWEAVE_BLESS=1 cargo test -p strideweave-cli --test view_gallery`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn gallery_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/gallery")
}

/// `(file, expression, flags)` of each entry; an expression `placement: SPEC` renders
/// `--placement SPEC`.
fn entries() -> Vec<(String, String, Vec<String>)> {
    let list = std::fs::read_to_string(gallery_dir().join("gallery.txt")).unwrap();
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split('|').map(str::trim).collect();
            assert!(
                parts.len() == 2 || parts.len() == 3,
                "bad gallery line: {l}"
            );
            let flags = parts
                .get(2)
                .map(|f| f.split_whitespace().map(String::from).collect())
                .unwrap_or_default();
            (parts[0].to_string(), parts[1].to_string(), flags)
        })
        .collect()
}

/// What `strideweave render EXPR FLAGS -o FILE` writes for an entry.
fn render(file: &str, expr: &str, flags: &[String]) -> Vec<u8> {
    let out = std::env::temp_dir().join(format!(
        "strideweave-view-gallery-{}-{file}",
        std::process::id()
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strideweave"));
    cmd.arg("render");
    match expr.strip_prefix("placement:") {
        Some(spec) => cmd.arg("--placement").arg(spec.trim()),
        None => cmd.arg(expr),
    };
    let st = cmd.args(flags).arg("-o").arg(&out).status().unwrap();
    assert!(st.success(), "render {expr} failed");
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    bytes
}

#[test]
fn gallery_files_match_what_the_cli_renders_now() {
    let bless = std::env::var_os("STRIDEWEAVE_BLESS").is_some();
    let mut stale = Vec::new();
    for (file, expr, flags) in entries() {
        let fresh = render(&file, &expr, &flags);
        let path = gallery_dir().join(&file);
        if bless {
            std::fs::write(&path, &fresh).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&fresh[..]) {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale gallery files {stale:?}; regenerate with \
         STRIDEWEAVE_BLESS=1 cargo test -p strideweave-cli --test view_gallery"
    );
}

#[test]
fn every_picture_in_the_gallery_is_listed_and_shown_in_the_docs() {
    let listed: Vec<String> = entries().into_iter().map(|e| e.0).collect();
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/viewing.md"))
            .unwrap();
    for f in std::fs::read_dir(gallery_dir()).unwrap() {
        let name = f.unwrap().file_name().into_string().unwrap();
        if name == "gallery.txt" {
            continue;
        }
        assert!(
            listed.contains(&name),
            "{name} is in docs/gallery but not in gallery.txt"
        );
        assert!(
            docs.contains(&format!("gallery/{name}")),
            "{name} is not referenced from docs/viewing.md"
        );
    }
}
