//! Tokenizes a file once per encoding named on the command line: a probe for profilers
//! (`valgrind --tool=callgrind target/release/examples/tokenize_file FILE cl100k`).

use ferrochunk::tokenizer::Encoding;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(
        args.get(1)
            .ok_or("usage: tokenize_file FILE [ENCODING] [count]")?,
    )?;
    let enc = Encoding::from_name(args.get(2).map_or("cl100k", String::as_str))?.load()?;
    if args.get(3).is_some_and(|a| a == "count") {
        println!("{} tokens", enc.count(&text));
    } else {
        println!("{} tokens", enc.token_starts(&text)?.len());
    }
    Ok(())
}
