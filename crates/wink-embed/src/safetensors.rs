//! A reader (and a small writer, for fixtures) of the safetensors format.
//!
//! Layout: an 8-byte little-endian header length `N`, `N` bytes of JSON header, then the data
//! section. The header maps tensor names to `{"dtype", "shape", "data_offsets": [begin, end]}`
//! (offsets relative to the data section) and may hold a `"__metadata__"` map of strings.
//! Every tensor's byte range is checked against its dtype and shape when the header is parsed;
//! values convert to `f32` from `F16`, `BF16`, `F32` and `F64`.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::error::EmbedError;

/// One tensor's entry in the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// The tensor's name (`embedding.weight`).
    pub name: String,
    /// The dtype as written in the header (`F16`, `F32`, …).
    pub dtype: String,
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
    /// Byte range inside the data section.
    pub data: Range<usize>,
}

impl TensorInfo {
    /// Number of elements (the product of the shape; 1 for a scalar).
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }
}

/// A parsed safetensors buffer: the header entries (sorted by data offset) and the data section.
#[derive(Debug, Clone)]
pub struct SafeTensors<'a> {
    tensors: Vec<TensorInfo>,
    metadata: Map<String, Value>,
    data: &'a [u8],
}

/// Byte size of one element of `dtype`, for the dtypes the format defines.
fn element_size(dtype: &str) -> Option<usize> {
    Some(match dtype {
        "BOOL" | "U8" | "I8" | "F8_E5M2" | "F8_E4M3" => 1,
        "I16" | "U16" | "F16" | "BF16" => 2,
        "I32" | "U32" | "F32" => 4,
        "I64" | "U64" | "F64" => 8,
        _ => return None,
    })
}

impl<'a> SafeTensors<'a> {
    /// Parses and validates the header of `bytes`. `origin` names the source in errors (a path
    /// or a label).
    pub fn parse(bytes: &'a [u8], origin: &str) -> Result<Self, EmbedError> {
        let fail = |reason: String| EmbedError::Safetensors {
            origin: origin.to_owned(),
            reason,
        };
        let Some((length_bytes, rest)) = bytes.split_first_chunk::<8>() else {
            return Err(fail(format!(
                "{} bytes is too short for the 8-byte header length",
                bytes.len()
            )));
        };
        let header_length = u64::from_le_bytes(*length_bytes);
        let header_length = usize::try_from(header_length)
            .ok()
            .filter(|&length| length <= rest.len())
            .ok_or_else(|| {
                fail(format!(
                    "header length {header_length} exceeds the {} bytes after it",
                    rest.len()
                ))
            })?;
        let (header, data) = rest.split_at(header_length);
        let header: Map<String, Value> = serde_json::from_slice(header)
            .map_err(|error| fail(format!("header is not a JSON object: {error}")))?;

        let mut tensors = Vec::with_capacity(header.len());
        let mut metadata = Map::new();
        for (name, entry) in header {
            if name == "__metadata__" {
                match entry {
                    Value::Object(map) => metadata = map,
                    other => return Err(fail(format!("`__metadata__` is not an object: {other}"))),
                }
                continue;
            }
            tensors.push(parse_entry(&name, &entry, data.len()).map_err(fail)?);
        }
        tensors.sort_by(|a, b| {
            (a.data.start, a.data.end, &a.name).cmp(&(b.data.start, b.data.end, &b.name))
        });
        for pair in tensors.windows(2) {
            if pair[1].data.start < pair[0].data.end {
                return Err(fail(format!(
                    "tensors `{}` and `{}` overlap",
                    pair[0].name, pair[1].name
                )));
            }
        }
        Ok(SafeTensors {
            tensors,
            metadata,
            data,
        })
    }

    /// All tensors, in data order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// The tensor called `name`.
    pub fn get(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|tensor| tensor.name == name)
    }

    /// The `__metadata__` map (empty when absent).
    pub fn metadata(&self) -> &Map<String, Value> {
        &self.metadata
    }

    /// The raw bytes of `tensor`.
    pub fn bytes(&self, tensor: &TensorInfo) -> &'a [u8] {
        &self.data[tensor.data.clone()]
    }

    /// The values of `tensor` as `f32`, row-major. Supports `F16`, `BF16`, `F32` and `F64`;
    /// other dtypes are an error naming the tensor.
    pub fn to_f32(&self, tensor: &TensorInfo) -> Result<Vec<f32>, String> {
        let bytes = self.bytes(tensor);
        Ok(match tensor.dtype.as_str() {
            "F16" => bytes
                .chunks_exact(2)
                .map(|pair| f16_to_f32(u16::from_le_bytes([pair[0], pair[1]])))
                .collect(),
            "BF16" => bytes
                .chunks_exact(2)
                .map(|pair| bf16_to_f32(u16::from_le_bytes([pair[0], pair[1]])))
                .collect(),
            "F32" => bytes
                .chunks_exact(4)
                .map(|word| f32::from_le_bytes([word[0], word[1], word[2], word[3]]))
                .collect(),
            "F64" => bytes
                .chunks_exact(8)
                .map(|word| {
                    let mut array = [0u8; 8];
                    array.copy_from_slice(word);
                    f64::from_le_bytes(array) as f32
                })
                .collect(),
            other => {
                return Err(format!(
                    "tensor `{}` has dtype {other}; only F16, BF16, F32 and F64 convert to floats",
                    tensor.name
                ));
            }
        })
    }
}

fn parse_entry(name: &str, entry: &Value, data_length: usize) -> Result<TensorInfo, String> {
    let field = |key: &str| {
        entry
            .get(key)
            .ok_or_else(|| format!("tensor `{name}` has no `{key}`"))
    };
    let dtype = field("dtype")?
        .as_str()
        .ok_or_else(|| format!("tensor `{name}`: `dtype` is not a string"))?
        .to_owned();
    let size =
        element_size(&dtype).ok_or_else(|| format!("tensor `{name}`: unknown dtype `{dtype}`"))?;
    let shape = field("shape")?
        .as_array()
        .ok_or_else(|| format!("tensor `{name}`: `shape` is not an array"))?
        .iter()
        .map(|dimension| {
            dimension
                .as_u64()
                .and_then(|d| usize::try_from(d).ok())
                .ok_or_else(|| format!("tensor `{name}`: shape entry {dimension} is not a size"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let offsets = field("data_offsets")?
        .as_array()
        .filter(|offsets| offsets.len() == 2)
        .ok_or_else(|| format!("tensor `{name}`: `data_offsets` is not [begin, end]"))?;
    let offset = |at: usize| {
        offsets[at]
            .as_u64()
            .and_then(|o| usize::try_from(o).ok())
            .ok_or_else(|| format!("tensor `{name}`: offset {} is not a size", offsets[at]))
    };
    let (begin, end) = (offset(0)?, offset(1)?);
    if begin > end || end > data_length {
        return Err(format!(
            "tensor `{name}`: data_offsets [{begin}, {end}] fall outside the {data_length}-byte data section"
        ));
    }
    let expected = shape
        .iter()
        .try_fold(size, |total, &dimension| total.checked_mul(dimension))
        .ok_or_else(|| format!("tensor `{name}`: shape {shape:?} overflows"))?;
    if end - begin != expected {
        return Err(format!(
            "tensor `{name}`: {dtype} {shape:?} needs {expected} bytes but data_offsets give {}",
            end - begin
        ));
    }
    Ok(TensorInfo {
        name: name.to_owned(),
        dtype,
        shape,
        data: begin..end,
    })
}

/// Converts IEEE 754 half-precision bits to `f32` (exact: every half value is representable).
///
/// ```
/// use wink_embed::safetensors::f16_to_f32;
/// assert_eq!(f16_to_f32(0x3C00), 1.0);
/// assert_eq!(f16_to_f32(0xC000), -2.0);
/// assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24)); // smallest subnormal
/// assert!(f16_to_f32(0x7E00).is_nan());
/// ```
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits & 0x8000) << 16;
    let exponent = u32::from((bits >> 10) & 0x1F);
    let mantissa = u32::from(bits & 0x03FF);
    let magnitude = match (exponent, mantissa) {
        (0, 0) => 0,
        (0, _) => {
            // Subnormal: value = mantissa · 2^-24. Shift the leading 1 up to bit 10 and lower
            // the exponent by as many places.
            let shift = mantissa.leading_zeros() - 21;
            let normalized = (mantissa << shift) & 0x03FF;
            ((127 - 15 + 1 - shift) << 23) | (normalized << 13)
        }
        (0x1F, _) => 0x7F80_0000 | (mantissa << 13),
        _ => ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// Converts bfloat16 bits to `f32` (the upper half of an `f32`).
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// One tensor to write with [`serialize`]: name, dtype, shape and little-endian bytes.
#[derive(Debug, Clone, Copy)]
pub struct TensorBytes<'t> {
    /// The tensor's name.
    pub name: &'t str,
    /// The dtype string (`F16`, `F32`, …).
    pub dtype: &'t str,
    /// Dimensions.
    pub shape: &'t [usize],
    /// The data, row-major, little-endian.
    pub bytes: &'t [u8],
}

/// Writes tensors in the safetensors layout, in the given order (used for test fixtures).
///
/// ```
/// use wink_embed::safetensors::{SafeTensors, TensorBytes, serialize};
/// let values: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let file = serialize(&[TensorBytes { name: "w", dtype: "F32", shape: &[1, 2], bytes: &values }]);
/// let parsed = SafeTensors::parse(&file, "example").unwrap();
/// assert_eq!(parsed.to_f32(&parsed.tensors()[0]).unwrap(), [1.0, 2.0]);
/// ```
pub fn serialize(tensors: &[TensorBytes<'_>]) -> Vec<u8> {
    let mut header = Map::new();
    let mut offset = 0usize;
    for tensor in tensors {
        header.insert(
            tensor.name.to_owned(),
            serde_json::json!({
                "dtype": tensor.dtype,
                "shape": tensor.shape,
                "data_offsets": [offset, offset + tensor.bytes.len()],
            }),
        );
        offset += tensor.bytes.len();
    }
    let mut header = Value::Object(header).to_string().into_bytes();
    // The format pads the header with spaces to an 8-byte boundary.
    while !header.len().is_multiple_of(8) {
        header.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + header.len() + offset);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    for tensor in tensors {
        out.extend_from_slice(tensor.bytes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The value of half-precision bits computed from the definition, in f64.
    fn half_by_definition(bits: u16) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exponent = i32::from((bits >> 10) & 0x1F);
        let mantissa = f64::from(bits & 0x03FF);
        match exponent {
            0 => sign * mantissa * 2f64.powi(-24),
            0x1F if mantissa == 0.0 => sign * f64::INFINITY,
            0x1F => f64::NAN,
            _ => sign * (1.0 + mantissa / 1024.0) * 2f64.powi(exponent - 15),
        }
    }

    #[test]
    fn every_half_value_converts_exactly() {
        for bits in 0..=u16::MAX {
            let converted = f16_to_f32(bits);
            let expected = half_by_definition(bits);
            if expected.is_nan() {
                assert!(converted.is_nan(), "{bits:#06x}");
            } else {
                assert_eq!(f64::from(converted), expected, "{bits:#06x}");
                assert_eq!(
                    converted.is_sign_negative(),
                    bits & 0x8000 != 0,
                    "{bits:#06x}"
                );
            }
        }
    }

    #[test]
    fn bf16_is_the_upper_half_of_f32() {
        assert_eq!(bf16_to_f32(0x3F80), 1.0);
        assert_eq!(bf16_to_f32(0xC040), -3.0);
    }

    fn f16_bytes(bits: &[u16]) -> Vec<u8> {
        bits.iter().flat_map(|b| b.to_le_bytes()).collect()
    }

    #[test]
    fn parses_f16_and_f32_tensors_with_metadata() {
        let half = f16_bytes(&[0x3C00, 0x4000, 0xBC00, 0x3800]);
        let single: Vec<u8> = [0.5f32, -4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut file = serialize(&[
            TensorBytes {
                name: "embedding.weight",
                dtype: "F16",
                shape: &[2, 2],
                bytes: &half,
            },
            TensorBytes {
                name: "bias",
                dtype: "F32",
                shape: &[2],
                bytes: &single,
            },
        ]);
        assert!(file.len().is_multiple_of(8));
        // Add metadata by hand to check that it is read and not taken for a tensor.
        let parsed = SafeTensors::parse(&file, "t").unwrap();
        assert_eq!(parsed.tensors().len(), 2);
        let table = parsed.get("embedding.weight").unwrap();
        assert_eq!(table.shape, [2, 2]);
        assert_eq!(parsed.to_f32(table).unwrap(), [1.0, 2.0, -1.0, 0.5]);
        assert_eq!(
            parsed.to_f32(parsed.get("bias").unwrap()).unwrap(),
            [0.5, -4.0]
        );

        let header = r#"{"__metadata__":{"format":"pt"},"x":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}"#;
        file = (header.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(&2.5f32.to_le_bytes());
        let parsed = SafeTensors::parse(&file, "t").unwrap();
        assert_eq!(parsed.metadata()["format"], "pt");
        assert_eq!(parsed.tensors().len(), 1);
        assert_eq!(parsed.tensors()[0].element_count(), 1);
        assert_eq!(parsed.to_f32(&parsed.tensors()[0]).unwrap(), [2.5]);
    }

    fn with_header(header: &str, data: &[u8]) -> Vec<u8> {
        let mut file = (header.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(data);
        file
    }

    fn error(bytes: &[u8]) -> String {
        SafeTensors::parse(bytes, "m.safetensors")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn malformed_files_are_clear_errors() {
        let prefix = "m.safetensors: invalid safetensors file: ";
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                vec![1, 2, 3],
                "3 bytes is too short for the 8-byte header length",
            ),
            (
                with_header("{}", b"")[..9].to_vec(),
                "header length 2 exceeds the 1 bytes after it",
            ),
            (
                with_header("[1]", b""),
                "header is not a JSON object: invalid type: sequence, expected a map at line 1 column 0",
            ),
            (
                with_header(
                    r#"{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,2]}}"#,
                    &[0; 2],
                ),
                "tensor `w`: F16 [2] needs 4 bytes but data_offsets give 2",
            ),
            (
                with_header(
                    r#"{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#,
                    &[0; 2],
                ),
                "tensor `w`: data_offsets [0, 4] fall outside the 2-byte data section",
            ),
            (
                with_header(
                    r#"{"w":{"dtype":"Q4","shape":[2],"data_offsets":[0,1]}}"#,
                    &[0; 1],
                ),
                "tensor `w`: unknown dtype `Q4`",
            ),
            (
                with_header(r#"{"w":{"shape":[2],"data_offsets":[0,1]}}"#, &[0; 1]),
                "tensor `w` has no `dtype`",
            ),
            (
                with_header(
                    r#"{"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}"#,
                    &[0; 1],
                ),
                "tensor `w`: shape entry -1 is not a size",
            ),
            (
                with_header(
                    r#"{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}"#,
                    &[0; 3],
                ),
                "tensors `a` and `b` overlap",
            ),
            (
                with_header(r#"{"__metadata__":3}"#, b""),
                "`__metadata__` is not an object: 3",
            ),
        ];
        for (bytes, reason) in cases {
            assert_eq!(error(&bytes), format!("{prefix}{reason}"));
        }
    }

    #[test]
    fn integer_tensors_parse_but_do_not_convert() {
        let file = with_header(
            r#"{"ids":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}}"#,
            &[1, 0, 0, 0],
        );
        let parsed = SafeTensors::parse(&file, "t").unwrap();
        assert_eq!(
            parsed.to_f32(&parsed.tensors()[0]).unwrap_err(),
            "tensor `ids` has dtype I32; only F16, BF16, F32 and F64 convert to floats"
        );
    }

    proptest! {
        #[test]
        fn serialized_tensors_parse_back(
            rows in 0usize..5,
            columns in 1usize..5,
            seed in any::<u32>(),
        ) {
            let values: Vec<f32> = (0..rows * columns)
                .map(|i| ((seed as usize + i * 7919) % 1000) as f32 / 8.0 - 60.0)
                .collect();
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let file = serialize(&[TensorBytes {
                name: "t",
                dtype: "F32",
                shape: &[rows, columns],
                bytes: &bytes,
            }]);
            let parsed = SafeTensors::parse(&file, "t").unwrap();
            prop_assert_eq!(&parsed.tensors()[0].shape, &vec![rows, columns]);
            prop_assert_eq!(parsed.to_f32(&parsed.tensors()[0]).unwrap(), values);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = SafeTensors::parse(&bytes, "fuzz");
        }
    }
}
