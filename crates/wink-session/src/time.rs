//! UTC timestamps with microsecond precision, serialized as RFC 3339 (`2026-11-22T03:47:39.123456Z`).
//!
//! The civil-date conversion is Howard Hinnant's `days_from_civil` / `civil_from_days` algorithm
//! (proleptic Gregorian calendar), so no date crate is needed.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const MICROS_PER_SECOND: i64 = 1_000_000;
const SECONDS_PER_DAY: i64 = 86_400;

/// A point in time, UTC, as microseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    micros_since_epoch: i64,
}

/// A string that is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid timestamp {input:?}: {reason} (expected RFC 3339 such as 2026-11-22T03:47:39.123456Z)"
)]
pub struct TimestampParseError {
    input: String,
    reason: &'static str,
}

impl Timestamp {
    /// The current time from the system clock.
    pub fn now() -> Self {
        Self::from_system_time(SystemTime::now())
    }

    /// Converts a [`SystemTime`], truncating to microseconds.
    pub fn from_system_time(time: SystemTime) -> Self {
        let micros = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_micros()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_micros()).map_or(i64::MIN, |m| -m),
        };
        Self {
            micros_since_epoch: micros,
        }
    }

    /// The timestamp `micros` microseconds after 1970-01-01T00:00:00Z (negative: before).
    pub fn from_unix_micros(micros: i64) -> Self {
        Self {
            micros_since_epoch: micros,
        }
    }

    /// Microseconds since the Unix epoch.
    pub fn unix_micros(self) -> i64 {
        self.micros_since_epoch
    }

    /// The equivalent [`SystemTime`].
    pub fn to_system_time(self) -> SystemTime {
        let magnitude = Duration::from_micros(self.micros_since_epoch.unsigned_abs());
        if self.micros_since_epoch >= 0 {
            UNIX_EPOCH + magnitude
        } else {
            UNIX_EPOCH - magnitude
        }
    }

    /// Builds a timestamp from UTC calendar fields; `None` when a field is out of range.
    pub fn from_utc(
        year: i64,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
        micros: u32,
    ) -> Option<Self> {
        if !(1..=12).contains(&month)
            || day == 0
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
            || micros >= 1_000_000
        {
            return None;
        }
        let days = days_from_civil(year, month, day);
        let seconds = days
            .checked_mul(SECONDS_PER_DAY)?
            .checked_add(i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second))?;
        let total = seconds
            .checked_mul(MICROS_PER_SECOND)?
            .checked_add(i64::from(micros))?;
        Some(Self {
            micros_since_epoch: total,
        })
    }

    /// Shifts by a signed number of seconds (used for parsing offsets).
    fn shifted_seconds(self, seconds: i64) -> Option<Self> {
        let micros = self
            .micros_since_epoch
            .checked_add(seconds.checked_mul(MICROS_PER_SECOND)?)?;
        Some(Self {
            micros_since_epoch: micros,
        })
    }
}

fn is_leap_year(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let month = i64::from(month);
    let day = i64::from(day);
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date `(year, month, day)` of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // month is in 1..=12 and day in 1..=31 by construction.
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = self.micros_since_epoch.div_euclid(MICROS_PER_SECOND);
        let micros = self.micros_since_epoch.rem_euclid(MICROS_PER_SECOND);
        let days = seconds.div_euclid(SECONDS_PER_DAY);
        let second_of_day = seconds.rem_euclid(SECONDS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
            second_of_day / 3600,
            (second_of_day / 60) % 60,
            second_of_day % 60
        )
    }
}

/// A small cursor over ASCII digits and separators.
struct Cursor<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, count: usize) -> Option<u32> {
        let slice = self.bytes.get(self.position..self.position + count)?;
        let mut value = 0u32;
        for byte in slice {
            if !byte.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u32::from(byte - b'0');
        }
        self.position += count;
        Some(value)
    }

    fn expect(&mut self, accepted: &[u8]) -> Option<u8> {
        let byte = *self.bytes.get(self.position)?;
        if accepted.contains(&byte) {
            self.position += 1;
            Some(byte)
        } else {
            None
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.position).copied()
    }
}

impl FromStr for Timestamp {
    type Err = TimestampParseError;

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; fractions beyond microseconds are truncated.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let fail = |reason| TimestampParseError {
            input: input.to_owned(),
            reason,
        };
        let mut cursor = Cursor {
            bytes: input.as_bytes(),
            position: 0,
        };
        let year = cursor.digits(4).ok_or_else(|| fail("bad year"))?;
        cursor
            .expect(b"-")
            .ok_or_else(|| fail("expected '-' after year"))?;
        let month = cursor.digits(2).ok_or_else(|| fail("bad month"))?;
        cursor
            .expect(b"-")
            .ok_or_else(|| fail("expected '-' after month"))?;
        let day = cursor.digits(2).ok_or_else(|| fail("bad day"))?;
        cursor
            .expect(b"Tt ")
            .ok_or_else(|| fail("expected 'T' between date and time"))?;
        let hour = cursor.digits(2).ok_or_else(|| fail("bad hour"))?;
        cursor
            .expect(b":")
            .ok_or_else(|| fail("expected ':' after hour"))?;
        let minute = cursor.digits(2).ok_or_else(|| fail("bad minute"))?;
        cursor
            .expect(b":")
            .ok_or_else(|| fail("expected ':' after minute"))?;
        let second = cursor.digits(2).ok_or_else(|| fail("bad second"))?;
        let mut micros = 0u32;
        if cursor.expect(b".").is_some() {
            let mut scale = 100_000u32;
            let mut any = false;
            while let Some(byte) = cursor.peek().filter(u8::is_ascii_digit) {
                micros += u32::from(byte - b'0') * scale;
                scale /= 10;
                cursor.position += 1;
                any = true;
            }
            if !any {
                return Err(fail("empty fraction"));
            }
        }
        let offset_seconds = match cursor
            .expect(b"Zz+-")
            .ok_or_else(|| fail("expected 'Z' or a UTC offset"))?
        {
            b'Z' | b'z' => 0,
            sign => {
                let hours = cursor.digits(2).ok_or_else(|| fail("bad offset hours"))?;
                cursor
                    .expect(b":")
                    .ok_or_else(|| fail("expected ':' in offset"))?;
                let minutes = cursor.digits(2).ok_or_else(|| fail("bad offset minutes"))?;
                if hours > 23 || minutes > 59 {
                    return Err(fail("offset out of range"));
                }
                let magnitude = i64::from(hours * 3600 + minutes * 60);
                if sign == b'-' { -magnitude } else { magnitude }
            }
        };
        if cursor.position != input.len() {
            return Err(fail("trailing characters"));
        }
        let local = Timestamp::from_utc(i64::from(year), month, day, hour, minute, second, micros)
            .ok_or_else(|| fail("field out of range"))?;
        local
            .shifted_seconds(-offset_seconds)
            .ok_or_else(|| fail("out of range"))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(
            Timestamp::from_unix_micros(0).to_string(),
            "1970-01-01T00:00:00.000000Z"
        );
        assert_eq!(
            Timestamp::from_unix_micros(1_795_319_259_123_456).to_string(),
            "2026-11-22T03:47:39.123456Z"
        );
        assert_eq!(
            Timestamp::from_unix_micros(951_782_400_000_000).to_string(),
            "2000-02-29T00:00:00.000000Z"
        );
        assert_eq!(
            Timestamp::from_unix_micros(-1).to_string(),
            "1969-12-31T23:59:59.999999Z"
        );
    }

    #[test]
    fn parses_rfc3339_variants() {
        let expected = Timestamp::from_unix_micros(1_795_319_259_123_456);
        assert_eq!(
            "2026-11-22T03:47:39.123456Z".parse::<Timestamp>().unwrap(),
            expected
        );
        assert_eq!(
            "2026-11-22T04:47:39.123456789+01:00"
                .parse::<Timestamp>()
                .unwrap(),
            expected
        );
        assert_eq!(
            "2026-11-22T03:47:39Z".parse::<Timestamp>().unwrap(),
            Timestamp::from_unix_micros(1_795_319_259_000_000)
        );
        assert_eq!(
            "2026-11-22T03:47:39.5+00:00".parse::<Timestamp>().unwrap(),
            Timestamp::from_unix_micros(1_795_319_259_500_000)
        );
    }

    #[test]
    fn rejects_malformed_input_with_reason() {
        let error = "2026-02-30T00:00:00Z".parse::<Timestamp>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid timestamp \"2026-02-30T00:00:00Z\": field out of range (expected RFC 3339 such as 2026-11-22T03:47:39.123456Z)"
        );
        assert!("2026-11-22".parse::<Timestamp>().is_err());
        assert!("2026-11-22T03:47:39".parse::<Timestamp>().is_err());
        assert!("2026-11-22T03:47:39Zx".parse::<Timestamp>().is_err());
    }

    #[test]
    fn serde_is_rfc3339_string() {
        let ts = Timestamp::from_unix_micros(1_795_319_259_123_456);
        assert_eq!(
            serde_json::to_string(&ts).unwrap(),
            r#""2026-11-22T03:47:39.123456Z""#
        );
        assert_eq!(
            serde_json::from_str::<Timestamp>(r#""2026-11-22T03:47:39.123456Z""#).unwrap(),
            ts
        );
    }

    #[test]
    fn now_is_close_to_system_time() {
        let now = Timestamp::now();
        let system = Timestamp::from_system_time(SystemTime::now());
        assert!(system.unix_micros() - now.unix_micros() < 60_000_000);
        assert_eq!(Timestamp::from_system_time(now.to_system_time()), now);
    }

    proptest! {
        #[test]
        fn display_parse_round_trip(micros in -62_135_596_800_000_000i64..253_402_300_799_999_999i64) {
            let ts = Timestamp::from_unix_micros(micros);
            prop_assert_eq!(ts.to_string().parse::<Timestamp>().unwrap(), ts);
        }

        #[test]
        fn civil_round_trip(days in -1_000_000i64..1_000_000i64) {
            let (y, m, d) = civil_from_days(days);
            prop_assert_eq!(days_from_civil(y, m, d), days);
            prop_assert!(d <= days_in_month(y, m));
        }
    }
}
