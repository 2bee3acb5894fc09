// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Anchors of the merchant kit's ledger (docs/chain.md): consecutive ranges of block numbers with the
/// RFC 6962 root over their block hashes. Only the deployer writes; ranges must follow each other
/// with no gap and no overlap, so a writer that restarts can neither anchor a range twice nor skip one.
contract KitAnchor {
    /// The only address allowed to anchor (whoever else could anchor would block the kit's next range).
    address public immutable writer;
    /// The EVM block of the deployment: where a search for `Anchored` events starts.
    uint64 public immutable deployedAt;
    /// The last ledger block anchored so far (0: none).
    uint64 public lastToBlock;

    event Anchored(uint64 indexed fromBlock, uint64 indexed toBlock, bytes32 lastBlockHash, bytes32 root);

    error NotWriter();
    /// `fromBlock` is not the block after the last one anchored.
    error NotNext(uint64 expected, uint64 given);
    error EmptyRange();

    constructor() {
        writer = msg.sender;
        deployedAt = uint64(block.number);
    }

    function anchor(uint64 fromBlock, uint64 toBlock, bytes32 lastBlockHash, bytes32 root) external {
        if (msg.sender != writer) revert NotWriter();
        uint64 next = lastToBlock + 1;
        if (fromBlock != next) revert NotNext(next, fromBlock);
        if (toBlock < fromBlock) revert EmptyRange();
        lastToBlock = toBlock;
        emit Anchored(fromBlock, toBlock, lastBlockHash, root);
    }
}
