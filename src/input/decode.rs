//! Bytes → text: UTF-8 where valid, latin-1 otherwise (every byte is a latin-1 character,
//! so decoding never fails and no document is lost to a stray byte).

/// Decodes `bytes` as UTF-8, falling back to latin-1 when they are not valid UTF-8; a
/// UTF-8 byte-order mark at the start is dropped.
pub fn decode_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(without_bom(bytes)) {
        Ok(s) => s,
        Err(e) => latin1(&e.into_bytes()),
    }
}

/// Decodes a file of lines (TSV, JSONL) as [`decode_text`] decodes one, but line by line:
/// one stray latin-1 byte turns only its own line into latin-1, not every UTF-8 line of the
/// file (as the streaming reader of `classify` and `vectorize` reads them too).
pub(crate) fn decode_lines(bytes: Vec<u8>) -> String {
    match String::from_utf8(without_bom(bytes)) {
        Ok(s) => s,
        Err(e) => e
            .into_bytes()
            .split_inclusive(|&b| b == b'\n')
            .map(|line| match std::str::from_utf8(line) {
                Ok(s) => s.to_string(),
                Err(_) => latin1(line),
            })
            .collect(),
    }
}

/// Decodes one line of a file of lines as [`decode_lines`] decodes it: UTF-8 where valid,
/// latin-1 otherwise; a byte-order mark is not dropped (it starts only the file).
pub(crate) fn decode_line(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => latin1(&e.into_bytes()),
    }
}

/// `bytes` without a leading UTF-8 byte-order mark.
fn without_bom(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    bytes
}

/// Decodes `bytes` as latin-1 (every byte is the character with that code); pure ASCII,
/// the common case, is taken over without copying.
pub(crate) fn decode_latin1(bytes: Vec<u8>) -> String {
    if bytes.is_ascii() {
        String::from_utf8(bytes).expect("ASCII is UTF-8")
    } else {
        latin1(&bytes)
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_kept_latin1_fallback() {
        assert_eq!(decode_text("café".as_bytes().to_vec()), "café");
        assert_eq!(decode_text(vec![b'c', b'a', b'f', 0xE9]), "café");
        assert_eq!(decode_text(vec![0xFC, b'b']), "üb");
        assert_eq!(decode_latin1("é".as_bytes().to_vec()), "Ã©");
        assert_eq!(decode_latin1(b"plain".to_vec()), "plain");
    }

    #[test]
    fn a_stray_byte_turns_only_its_own_line_into_latin1() {
        let mut file = "spam\tcafé crème\n".as_bytes().to_vec();
        file.extend(b"ham\tcaf\xE9\n");
        file.extend("spam\tspéciale".as_bytes());
        assert_eq!(
            decode_lines(file),
            "spam\tcafé crème\nham\tcafé\nspam\tspéciale"
        );
        assert_eq!(decode_lines(b"\xEF\xBB\xBFa\xE9\n".to_vec()), "aé\n");
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(
            decode_text(b"\xEF\xBB\xBF{\"a\": 1}".to_vec()),
            "{\"a\": 1}"
        );
        assert_eq!(decode_text(b"\xEF\xBB\xBFspam\tx\xE9".to_vec()), "spam\txé");
    }
}
