// `assetgen skills install|uninstall|list|update` (and `assetgen install`): put the assetgen skill
// where each coding agent looks. One file per verb in ./skills/; prompts only on a terminal, and
// without one, flags say everything.
export { install, type InstallOptions } from './skills/install.js';
export { list } from './skills/list.js';
export { uninstall, type UninstallOptions } from './skills/uninstall.js';
export { update, type UpdateOptions } from './skills/update.js';
