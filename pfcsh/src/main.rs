//! pfcsh: the operator's shell for pfcd. Everything lives in the library (`src/lib.rs`) so
//! that tests and the start-up benchmark drive the same code.

fn main() -> std::process::ExitCode {
    pfcsh::run(std::env::args_os())
}
