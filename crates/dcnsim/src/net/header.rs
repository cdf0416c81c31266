//! The transport's header slot: the bytes of a packet that belong to its transport's own
//! header (the fields switch agents read and rewrite, [`crate::protocols::agent`]).
//!
//! The network does not know the transports. A [`Header`] is a tag and [`SLOT_BYTES`] opaque
//! bytes; each transport's header type implements [`WireHeader`], which names its tag and
//! packs its fields into the bytes and back. [`Header::read`] returns a header only to the type
//! that wrote it, so a packet of one transport is never read as another's.
//!
//! **Size budget.** The packet must stay within two cache lines with room to spare (a test in
//! `packet.rs` checks it), which leaves the slot 24 bytes: the tag and 23 bytes of fields. So
//! fields are compact fixed-point integers (a rate in kbit/s, a time in ns), each transport
//! documenting its units. The bytes a header occupies *on the wire* are a separate matter:
//! every transport adds them to `Packet::size` itself.

/// Bytes a header's fields may take.
pub const SLOT_BYTES: usize = 23;

/// A packet's transport header: empty ([`Header::NONE`]) or the packed fields of one
/// [`WireHeader`] type.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// The writer's [`WireHeader::TAG`]; 0 for no header.
    tag: u8,
    bytes: [u8; SLOT_BYTES],
}

/// A transport's header type: its fields packed into a [`Header`]'s bytes and back.
///
/// `unpack` must read the fields in the order `pack` wrote them; each header type has a test
/// that one round-trips into the other.
pub trait WireHeader: Copy {
    /// Names the type in the slot: distinct for every header type of the registered
    /// transports, and not 0 (a test in `protocols::registry` checks both).
    const TAG: u8;
    fn pack(&self, to: &mut Writer);
    fn unpack(from: &mut Reader) -> Self;
}

impl Header {
    /// No transport header (TCP, DCTCP, D2TCP, pFabric).
    pub const NONE: Header = Header {
        tag: 0,
        bytes: [0; SLOT_BYTES],
    };

    /// The slot holding `h`.
    #[inline(always)]
    pub fn of<H: WireHeader>(h: H) -> Header {
        let mut slot = Header {
            tag: H::TAG,
            bytes: [0; SLOT_BYTES],
        };
        h.pack(&mut Writer {
            bytes: &mut slot.bytes,
            at: 0,
        });
        slot
    }

    /// The header of type `H` this slot holds, if `H` wrote it.
    #[inline(always)]
    pub fn read<H: WireHeader>(&self) -> Option<H> {
        self.holds::<H>().then(|| {
            H::unpack(&mut Reader {
                bytes: &self.bytes,
                at: 0,
            })
        })
    }

    /// Whether the slot holds a header of type `H`.
    #[inline(always)]
    pub fn holds<H: WireHeader>(&self) -> bool {
        self.tag == H::TAG
    }

    /// Applies `change` to the header of type `H`, if the slot holds one, and writes it back.
    #[inline(always)]
    pub fn update<H: WireHeader, R>(&mut self, change: impl FnOnce(&mut H) -> R) -> Option<R> {
        let mut h = self.read::<H>()?;
        let out = change(&mut h);
        *self = Header::of(h);
        Some(out)
    }
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.tag == 0 {
            f.write_str("Header::NONE")
        } else {
            write!(
                f,
                "Header {{ tag: {}, bytes: {:02x?} }}",
                self.tag, self.bytes
            )
        }
    }
}

/// Packs fields, in order, into a slot's bytes (little-endian). Writing past the slot panics,
/// which a header's round-trip test catches.
pub struct Writer<'a> {
    bytes: &'a mut [u8; SLOT_BYTES],
    at: usize,
}

/// Reads fields back in the order a [`Writer`] packed them.
pub struct Reader<'a> {
    bytes: &'a [u8; SLOT_BYTES],
    at: usize,
}

macro_rules! fixed_width_fields {
    ($($name:ident: $ty:ty),*) => {
        impl Writer<'_> {
            $(
                #[inline(always)]
                pub fn $name(&mut self, v: $ty) {
                    const N: usize = std::mem::size_of::<$ty>();
                    self.bytes[self.at..self.at + N].copy_from_slice(&v.to_le_bytes());
                    self.at += N;
                }
            )*
        }
        impl Reader<'_> {
            $(
                #[inline(always)]
                pub fn $name(&mut self) -> $ty {
                    const N: usize = std::mem::size_of::<$ty>();
                    let mut b = [0; N];
                    b.copy_from_slice(&self.bytes[self.at..self.at + N]);
                    self.at += N;
                    <$ty>::from_le_bytes(b)
                }
            )*
        }
    };
}

fixed_width_fields!(u8: u8, u16: u16, u32: u32, f32: f32);

impl Writer<'_> {
    #[inline(always)]
    pub fn bool(&mut self, v: bool) {
        self.u8(v as u8)
    }
}

impl Reader<'_> {
    #[inline(always)]
    pub fn bool(&mut self) -> bool {
        self.u8() != 0
    }
}

/// Asserts that `h` survives a trip through the slot, `unpack` reading exactly the bytes
/// `pack` wrote: for each header type's tests.
#[cfg(test)]
pub fn assert_round_trips<H: WireHeader + PartialEq + std::fmt::Debug>(h: H) {
    let slot = Header::of(h);
    assert_eq!(slot.read::<H>(), Some(h));
    assert!(slot.holds::<H>());
    assert_eq!(Header::NONE.read::<H>(), None);
    let mut bytes = [0; SLOT_BYTES];
    let mut to = Writer {
        bytes: &mut bytes,
        at: 0,
    };
    h.pack(&mut to);
    let written = to.at;
    let mut from = Reader {
        bytes: &bytes,
        at: 0,
    };
    H::unpack(&mut from);
    assert_eq!(
        from.at, written,
        "unpack reads as many bytes as pack writes"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Widest {
        a: u32,
        b: u32,
        c: u32,
        d: u32,
        e: u32,
        f: u16,
        g: u8,
    }

    impl WireHeader for Widest {
        const TAG: u8 = 200;
        fn pack(&self, to: &mut Writer) {
            for v in [self.a, self.b, self.c, self.d, self.e] {
                to.u32(v);
            }
            to.u16(self.f);
            to.u8(self.g);
        }
        fn unpack(from: &mut Reader) -> Self {
            Widest {
                a: from.u32(),
                b: from.u32(),
                c: from.u32(),
                d: from.u32(),
                e: from.u32(),
                f: from.u16(),
                g: from.u8(),
            }
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Other(f32, bool);

    impl WireHeader for Other {
        const TAG: u8 = 201;
        fn pack(&self, to: &mut Writer) {
            to.f32(self.0);
            to.bool(self.1);
        }
        fn unpack(from: &mut Reader) -> Self {
            Other(from.f32(), from.bool())
        }
    }

    /// The budget the module states (five `u32`, a `u16` and a `u8`) fills the slot exactly,
    /// and the slot is the 24 bytes the packet leaves it.
    #[test]
    fn the_widest_header_fits_and_round_trips() {
        assert_eq!(std::mem::size_of::<Header>(), 24);
        let h = Widest {
            a: u32::MAX,
            b: 1,
            c: 0x0102_0304,
            d: 0,
            e: 77,
            f: u16::MAX - 1,
            g: 0x80,
        };
        assert_round_trips(h);
        assert_round_trips(Other(-1.5e-9, true));
    }

    #[test]
    fn a_header_reads_only_as_the_type_that_wrote_it() {
        let slot = Header::of(Other(2.0, false));
        assert_eq!(slot.read::<Widest>(), None);
        assert!(!slot.holds::<Widest>());
        assert_eq!(Header::default(), Header::NONE);
    }

    #[test]
    fn update_writes_the_change_back_and_skips_other_types() {
        let mut slot = Header::of(Other(1.0, false));
        assert_eq!(
            slot.update(|h: &mut Other| {
                h.1 = true;
                7
            }),
            Some(7)
        );
        assert_eq!(slot.read::<Other>(), Some(Other(1.0, true)));
        let before = slot;
        assert_eq!(slot.update(|h: &mut Widest| h.a = 1), None);
        assert_eq!(slot, before);
    }

    /// A header whose `unpack` skips a byte `pack` wrote fails its round trip, even when the
    /// skipped field happens to read back equal.
    #[test]
    #[should_panic(expected = "unpack reads as many bytes as pack writes")]
    fn a_header_that_reads_less_than_it_wrote_fails_its_round_trip() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        struct Short(u32);
        impl WireHeader for Short {
            const TAG: u8 = 203;
            fn pack(&self, to: &mut Writer) {
                to.u32(self.0);
                to.u8(0);
            }
            fn unpack(from: &mut Reader) -> Self {
                Short(from.u32())
            }
        }
        assert_round_trips(Short(5));
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_header_too_wide_for_the_slot_panics_in_its_round_trip() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        struct TooWide([u32; 6]);
        impl WireHeader for TooWide {
            const TAG: u8 = 202;
            fn pack(&self, to: &mut Writer) {
                self.0.iter().for_each(|&v| to.u32(v));
            }
            fn unpack(from: &mut Reader) -> Self {
                TooWide(std::array::from_fn(|_| from.u32()))
            }
        }
        assert_round_trips(TooWide([1; 6]));
    }
}
