fn main() -> std::process::ExitCode {
    shogun_lab::cli::main()
}
