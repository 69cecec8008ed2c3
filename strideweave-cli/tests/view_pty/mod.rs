//! Runs the binary with its standard input and output on a pseudo-terminal, so the tests
//! see what a user at a terminal sees.

use nix::pty::openpty;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `bin ARGS` with stdin and stdout on a fresh terminal, types `input` into it, and
/// returns everything the program wrote to the terminal (the terminal echoes the input
/// too). Fails the test if the program runs longer than 20 seconds.
pub fn run_on_terminal(bin: &str, args: &[&str], env: &[(&str, &str)], input: &str) -> String {
    let pty = openpty(None, None).expect("openpty");
    let slave: OwnedFd = pty.slave;
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn");
    drop(cmd); // closes our copies of the terminal's slave side
    let mut master = File::from(pty.master);
    let reader = {
        let mut m = master.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match m.read(&mut buf) {
                    Ok(0) | Err(_) => break, // EIO once the program has closed the terminal
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                }
            }
            out
        })
    };
    for chunk in input.split_inclusive('\n') {
        std::thread::sleep(Duration::from_millis(150));
        master.write_all(chunk.as_bytes()).unwrap();
    }
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("program on the terminal did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(master);
    String::from_utf8_lossy(&reader.join().unwrap()).into_owned()
}
