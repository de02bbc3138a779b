//! A household's id names its shape, as an API key names its account: the id is a UUIDv8 (RFC
//! 9562's custom layout) whose 9 bits after the version hold the member count (1 to 6, 3 bits)
//! and each member's role (one bit per member slot, set for a guarantor). Every other bit is
//! random: 113 of them, so an id is as unguessable as ever.
//!
//! Each member's verification id follows from the household id and the member's place in it
//! (`member_id`), so a cancel can name every member without reading the household first.

use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::{HouseholdMember, MAX_MEMBERS, MemberRole};

/// The version nibble's place in the id as a `u128` (bits 76..80), and a UUIDv8's version.
const VERSION_SHIFT: u32 = 76;
const VERSION_8: u128 = 8;
/// The variant's two bits (62..64): `10`, RFC 9562's.
const VARIANT_SHIFT: u32 = 62;
const VARIANT_RFC: u128 = 0b10;
/// The shape's 9 bits, right after the version (bits 67..76): the count above the roles.
const SHAPE_SHIFT: u32 = 67;
const SHAPE_BITS: u32 = 9;
const ROLE_BITS: u32 = 6;

/// The members' roles, in the household's order, as the id carries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HouseholdShape {
    roles: Vec<MemberRole>,
}

impl HouseholdShape {
    /// The shape of a household with these members; None for no member or more than
    /// `MAX_MEMBERS`.
    pub fn new(roles: &[MemberRole]) -> Option<Self> {
        (1..=MAX_MEMBERS)
            .contains(&roles.len())
            .then(|| HouseholdShape {
                roles: roles.to_vec(),
            })
    }

    /// The shape `id` carries; None for an id that carries none (another version or variant, a
    /// count outside 1 to 6, a role bit set past the count).
    pub fn of(id: Uuid) -> Option<Self> {
        let bits = id.as_u128();
        if (bits >> VERSION_SHIFT) & 0xF != VERSION_8
            || (bits >> VARIANT_SHIFT) & 0b11 != VARIANT_RFC
        {
            return None;
        }
        let shape = (bits >> SHAPE_SHIFT) & ((1 << SHAPE_BITS) - 1);
        let count = (shape >> ROLE_BITS) as usize;
        let role_bits = shape & ((1 << ROLE_BITS) - 1);
        if !(1..=MAX_MEMBERS).contains(&count) || role_bits >> count != 0 {
            return None;
        }
        let roles = (0..count)
            .map(|i| match (role_bits >> i) & 1 {
                1 => MemberRole::Guarantor,
                _ => MemberRole::Applicant,
            })
            .collect();
        Some(HouseholdShape { roles })
    }

    /// How many members the id `id` names; 0 for an id that carries no shape (no household has
    /// none, so a cancel's condition on it refuses).
    pub fn member_count(id: Uuid) -> usize {
        HouseholdShape::of(id).map_or(0, |shape| shape.roles.len())
    }

    /// A new household id carrying this shape, every other bit random.
    pub fn new_household_id(&self) -> Uuid {
        let random: u128 = rand::random();
        let fixed = (0xF << VERSION_SHIFT)
            | (0b11 << VARIANT_SHIFT)
            | (((1 << SHAPE_BITS) - 1) << SHAPE_SHIFT);
        Uuid::from_u128((random & !fixed) | (self.bits() << SHAPE_SHIFT) | v8_bits())
    }

    pub fn roles(&self) -> &[MemberRole] {
        &self.roles
    }

    /// The members of the household `household_id` (of this shape): each one's verification id
    /// (`member_id`) and role, in order.
    pub fn members(&self, household_id: Uuid) -> Vec<HouseholdMember> {
        (self.roles.iter().enumerate())
            .map(|(i, role)| HouseholdMember {
                verification_id: member_id(household_id, i),
                role: *role,
            })
            .collect()
    }

    fn bits(&self) -> u128 {
        let roles = (self.roles.iter().enumerate())
            .filter(|(_, r)| **r == MemberRole::Guarantor)
            .fold(0u128, |bits, (i, _)| bits | (1 << i));
        ((self.roles.len() as u128) << ROLE_BITS) | roles
    }
}

/// The verification id of member `index` of the household `household_id`: the first 16 bytes of
/// SHA-256(household id's bytes || index), as a UUIDv8.
pub fn member_id(household_id: Uuid, index: usize) -> Uuid {
    let mut hash = Sha256::new();
    hash.update(household_id.as_bytes());
    hash.update([index as u8]);
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    let fixed = (0xF << VERSION_SHIFT) | (0b11 << VARIANT_SHIFT);
    Uuid::from_u128((u128::from_be_bytes(bytes) & !fixed) | v8_bits())
}

/// A UUIDv8's version and variant bits.
fn v8_bits() -> u128 {
    (VERSION_8 << VERSION_SHIFT) | (VARIANT_RFC << VARIANT_SHIFT)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use MemberRole::{Applicant, Guarantor};

    /// Every shape: each count with each mix of roles.
    fn every_shape() -> Vec<Vec<MemberRole>> {
        (1..=MAX_MEMBERS)
            .flat_map(|count| {
                (0..1u32 << count).map(move |mix| {
                    (0..count)
                        .map(|i| {
                            if (mix >> i) & 1 == 1 {
                                Guarantor
                            } else {
                                Applicant
                            }
                        })
                        .collect()
                })
            })
            .collect()
    }

    #[test]
    fn every_count_and_role_mix_reads_back_from_its_id() {
        let shapes = every_shape();
        assert_eq!(shapes.len(), 2 + 4 + 8 + 16 + 32 + 64);
        for roles in shapes {
            let shape = HouseholdShape::new(&roles).unwrap();
            let id = shape.new_household_id();
            assert_eq!(id.get_version_num(), 8, "{id}");
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122, "{id}");
            assert_eq!(HouseholdShape::of(id), Some(shape.clone()), "{id}");
            assert_eq!(HouseholdShape::of(id).unwrap().roles(), roles.as_slice());
        }
    }

    #[test]
    fn no_member_or_too_many_has_no_shape() {
        assert_eq!(HouseholdShape::new(&[]), None);
        assert_eq!(HouseholdShape::new(&[Applicant; MAX_MEMBERS + 1]), None);
    }

    #[test]
    fn an_id_without_a_valid_shape_reads_none() {
        // Another version (a v4 id), or a v8 id with a count of 0 or 7, or a role past the count.
        assert_eq!(HouseholdShape::of(Uuid::new_v4()), None);
        assert_eq!(HouseholdShape::of(Uuid::nil()), None);
        let id = HouseholdShape::new(&[Applicant])
            .unwrap()
            .new_household_id();
        let with_shape = |shape: u128| {
            let cleared = id.as_u128() & !(((1 << SHAPE_BITS) - 1) << SHAPE_SHIFT);
            Uuid::from_u128(cleared | (shape << SHAPE_SHIFT))
        };
        assert!(HouseholdShape::of(with_shape(1 << ROLE_BITS)).is_some());
        assert_eq!(HouseholdShape::of(with_shape(0)), None);
        assert_eq!(HouseholdShape::of(with_shape(7 << ROLE_BITS)), None);
        assert_eq!(
            HouseholdShape::of(with_shape((1 << ROLE_BITS) | 0b10)),
            None
        );
        // The variant cleared.
        let other_variant = Uuid::from_u128(id.as_u128() & !(0b11 << VARIANT_SHIFT));
        assert_eq!(HouseholdShape::of(other_variant), None);
    }

    #[test]
    fn every_bit_but_the_version_variant_and_shape_is_random() {
        let shape = HouseholdShape::new(&[Applicant, Guarantor, Applicant]).unwrap();
        let ids: Vec<u128> = (0..400)
            .map(|_| shape.new_household_id().as_u128())
            .collect();
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        let varying = (0..128)
            .filter(|bit| {
                let ones = ids.iter().filter(|id| (*id >> bit) & 1 == 1).count();
                ones > 0 && ones < ids.len()
            })
            .count();
        // 128 - 4 (version) - 2 (variant) - 9 (shape).
        assert_eq!(varying, 113);
    }

    #[test]
    fn member_ids_are_distinct_deterministic_v8_uuids() {
        let shape = HouseholdShape::new(&[Applicant; MAX_MEMBERS]).unwrap();
        let household = shape.new_household_id();
        let members = shape.members(household);
        let ids: HashSet<Uuid> = members.iter().map(|m| m.verification_id).collect();
        assert_eq!(ids.len(), MAX_MEMBERS);
        assert!(!ids.contains(&household));
        for (i, m) in members.iter().enumerate() {
            assert_eq!(m.verification_id, member_id(household, i), "deterministic");
            assert_eq!(m.verification_id.get_version_num(), 8);
            assert_eq!(m.verification_id.get_variant(), uuid::Variant::RFC4122);
        }
        // Another household's members are others.
        let other = shape.new_household_id();
        assert!(!ids.contains(&member_id(other, 0)));
    }
}
