//! `layout`: a loaded data layout ([`Layout`]; its required calls and how an instance is
//! wrapped: [`ImportKind`]).

use super::{block, location, req, vb_block, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::BlockId;
use vodbench_plugin_api::plugin::*;

struct CLayout(Instance);

impl ImportKind for dyn Layout {
    type Table = VbLayoutVtable;
    fn required(table: &VbLayoutVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("locate", table.locate.is_some()),
            ("next_on_same_disk", table.next_on_same_disk.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CLayout(instance))
    }
}

impl Layout for CLayout {
    fn locate(&self, b: BlockId) -> Location {
        let vt = self.0.vt::<VbLayoutVtable>();
        let mut l = VbLocation::default();
        self.0.ok("locate", unsafe {
            req(vt.locate)(self.0.state, &vb_block(b), &mut l)
        });
        location(&l)
    }
    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        let vt = self.0.vt::<VbLayoutVtable>();
        let (mut some, mut out) = (0u8, VbBlockId::default());
        self.0.ok("next_on_same_disk", unsafe {
            req(vt.next_on_same_disk)(self.0.state, &vb_block(b), &mut some, &mut out)
        });
        (some != 0).then(|| block(&out))
    }
    fn pieces(&self) -> u32 {
        let Some(f) = self.0.vt::<VbLayoutVtable>().pieces else {
            return 1;
        };
        let mut n = 0;
        self.0.ok("pieces", unsafe { f(self.0.state, &mut n) });
        n
    }
    fn locate_piece(&self, b: BlockId, piece: u32) -> Location {
        let Some(f) = self.0.vt::<VbLayoutVtable>().locate_piece else {
            return self.locate(b);
        };
        let mut l = VbLocation::default();
        self.0.ok("locate_piece", unsafe {
            f(self.0.state, &vb_block(b), piece, &mut l)
        });
        location(&l)
    }
}
