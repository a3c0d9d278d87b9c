'use strict';

/**
 * Kubernetes nodes (#459): where the node's kubeconfig is and which context and namespace to
 * use, the bound on each wait, and the verdict of the node's last connection test (shown by the
 * nodes list). All nullable and nothing backfilled: Proxmox, Docker and Dummy rows keep NULL and
 * their behaviour. `kubeconfigPath` is a file on the Manager host, never the file's content.
 *
 * @type {import('sequelize-cli').Migration}
 */
module.exports = {
  async up(queryInterface, Sequelize) {
    await queryInterface.addColumn('Nodes', 'kubeconfigPath', { type: Sequelize.STRING(1024), allowNull: true });
    await queryInterface.addColumn('Nodes', 'kubeContext', { type: Sequelize.STRING(253), allowNull: true });
    await queryInterface.addColumn('Nodes', 'kubeNamespace', { type: Sequelize.STRING(63), allowNull: true });
    await queryInterface.addColumn('Nodes', 'waitTimeout', { type: Sequelize.INTEGER, allowNull: true });
    await queryInterface.addColumn('Nodes', 'lastConnectionTest', { type: Sequelize.JSON, allowNull: true });
  },

  async down(queryInterface) {
    await queryInterface.removeColumn('Nodes', 'lastConnectionTest');
    await queryInterface.removeColumn('Nodes', 'waitTimeout');
    await queryInterface.removeColumn('Nodes', 'kubeNamespace');
    await queryInterface.removeColumn('Nodes', 'kubeContext');
    await queryInterface.removeColumn('Nodes', 'kubeconfigPath');
  },
};
