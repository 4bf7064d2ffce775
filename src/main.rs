fn main() -> std::process::ExitCode {
    shogun_lab::cli::main()
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
