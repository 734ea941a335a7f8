package dev.lacuna.dynamodb;

import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSecondaryPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSecondarySortKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSortKey;

/** A helpdesk ticket as an Enhanced Client bean: the table's key and the open-queue index GSI1. */
@DynamoDbBean
public class TicketBean {
    private String pk;
    private String sk;
    private String subject;
    private Long openedAt;
    private String queue;
    private String queuedAt;

    /** An empty ticket, as the Enhanced Client makes one before setting what it read. */
    public TicketBean() {
    }

    /** The partition key. */
    @DynamoDbPartitionKey
    public String getPk() {
        return pk;
    }

    /** Sets the partition key. */
    public void setPk(String pk) {
        this.pk = pk;
    }

    /** The sort key. */
    @DynamoDbSortKey
    public String getSk() {
        return sk;
    }

    /** Sets the sort key. */
    public void setSk(String sk) {
        this.sk = sk;
    }

    /** The subject. */
    public String getSubject() {
        return subject;
    }

    /** Sets the subject. */
    public void setSubject(String subject) {
        this.subject = subject;
    }

    /** When it was opened, epoch seconds. */
    public Long getOpenedAt() {
        return openedAt;
    }

    /** Sets when it was opened. */
    public void setOpenedAt(Long openedAt) {
        this.openedAt = openedAt;
    }

    /** GSI1's partition key: the queue, while the ticket is open; null once closed. */
    @DynamoDbSecondaryPartitionKey(indexNames = "GSI1")
    public String getQueue() {
        return queue;
    }

    /** Sets the queue. */
    public void setQueue(String queue) {
        this.queue = queue;
    }

    /** GSI1's sort key. */
    @DynamoDbSecondarySortKey(indexNames = "GSI1")
    public String getQueuedAt() {
        return queuedAt;
    }

    /** Sets GSI1's sort key. */
    public void setQueuedAt(String queuedAt) {
        this.queuedAt = queuedAt;
    }
}
